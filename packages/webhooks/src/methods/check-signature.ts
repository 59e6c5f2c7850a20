import { assertArguments } from './assert-arguments.js';
import { constantTimeEqual } from './constant-time-equal.js';
import type { HmacBackend } from './hmac-backend.js';
import { isWellFormedSignature } from './is-well-formed-signature.js';

const PREFIX_LENGTH = 'sha256='.length;

/**
 * The check behind `verify()`, without a promise when the backend answers synchronously
 * (node:crypto): a boolean, or a promise of one on Web Crypto. Throws a `TypeError` when an
 * argument is missing.
 *
 * @example
 * ```ts
 * const ok = checkSignature(getDefaultHmacBackend(), secret, payload, signature);
 * if (ok === true || (ok !== false && (await ok))) accept();
 * ```
 */
export function checkSignature(
  backend: HmacBackend,
  secret: string,
  payload: string | Uint8Array,
  signature: string,
): boolean | Promise<boolean> {
  assertArguments('verify', { secret, payload, signature }, true);
  if (!isWellFormedSignature(signature)) return false;
  const expected = signature.slice(PREFIX_LENGTH);
  const digest = backend.hmacHex(secret, payload);
  if (typeof digest === 'string') return constantTimeEqual(digest, expected);
  return digest.then((hex) => constantTimeEqual(hex, expected));
}

/**
 * `checkSignature` against `secret`, then each of `additionalSecrets` in order; synchronous
 * as long as the backend is.
 *
 * @example
 * ```ts
 * checkSignatureWithFallback(backend, secret, payload, signature, [oldSecret]); // boolean on Node
 * ```
 */
export function checkSignatureWithFallback(
  backend: HmacBackend,
  secret: string,
  payload: string | Uint8Array,
  signature: string,
  additionalSecrets: ReadonlyArray<string> | undefined | null,
): boolean | Promise<boolean> {
  const secrets = additionalSecrets ? [secret, ...additionalSecrets] : [secret];
  return checkFrom(backend, secrets, 0, payload, signature);
}

function checkFrom(
  backend: HmacBackend,
  secrets: ReadonlyArray<string>,
  from: number,
  payload: string | Uint8Array,
  signature: string,
): boolean | Promise<boolean> {
  for (let i = from; i < secrets.length; i++) {
    const match = checkSignature(backend, secrets[i] as string, payload, signature);
    if (match === true) return true;
    if (match !== false) {
      return match.then((ok) => ok || checkFrom(backend, secrets, i + 1, payload, signature));
    }
  }
  return false;
}
