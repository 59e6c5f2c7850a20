/**
 * Whether a handler's return value is a promise-like to wait for.
 *
 * @example
 * ```ts
 * if (isThenable(result)) await result;
 * ```
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
