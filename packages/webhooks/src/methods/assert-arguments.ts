import { InvalidArgumentError } from '../errors.js';

/**
 * Throws a `TypeError` naming each missing argument, or the one with a wrong type.
 * Empty strings count as missing: an empty secret would sign anything, an empty payload is no
 * delivery.
 *
 * @example
 * ```ts
 * assertArguments('verify', { secret, payload, signature }); // throws if any is missing
 * ```
 */
export function assertArguments(
  method: string,
  args: { secret: unknown; payload: unknown; signature?: unknown },
  needsSignature = false,
): void {
  const missing: string[] = [];
  if (args.secret === undefined || args.secret === null || args.secret === '') {
    missing.push('secret');
  }
  if (
    args.payload === undefined ||
    args.payload === null ||
    args.payload === '' ||
    (args.payload instanceof Uint8Array && args.payload.length === 0)
  ) {
    missing.push('payload');
  }
  if (
    needsSignature &&
    (args.signature === undefined || args.signature === null || args.signature === '')
  ) {
    missing.push('signature');
  }
  if (missing.length > 0) {
    throw new InvalidArgumentError(`${method}(): ${missing.join(', ')} required`);
  }
  if (typeof args.secret !== 'string') {
    throw new InvalidArgumentError(`${method}(): secret must be a string`);
  }
  if (typeof args.payload !== 'string' && !(args.payload instanceof Uint8Array)) {
    throw new InvalidArgumentError(`${method}(): payload must be a string or a Uint8Array`);
  }
  if (needsSignature && typeof args.signature !== 'string') {
    throw new InvalidArgumentError(`${method}(): signature must be a string`);
  }
}
