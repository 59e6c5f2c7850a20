import { InvalidArgumentError } from '../errors.js';

/**
 * Throws a `TypeError` when `handler` is not a function, naming the method.
 *
 * @example
 * ```ts
 * assertHandler('on', handler);
 * ```
 */
export function assertHandler(method: string, handler: unknown): void {
  if (typeof handler !== 'function') {
    throw new InvalidArgumentError(
      `${method}(): handler must be a function (received ${handler === null ? 'null' : typeof handler})`,
    );
  }
}
