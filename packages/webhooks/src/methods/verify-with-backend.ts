import { assertArguments } from './assert-arguments.js';
import { constantTimeEqual } from './constant-time-equal.js';
import type { HmacBackend } from './hmac-backend.js';
import { isWellFormedSignature } from './is-well-formed-signature.js';

const PREFIX_LENGTH = 'sha256='.length;

/**
 * `verify()` on an explicit backend (node:crypto or crypto.subtle).
 *
 * @example
 * ```ts
 * await verifyWithBackend(createWebHmacBackend(), 'secret', '{}', signature);
 * ```
 */
export function verifyWithBackend(
  backend: HmacBackend,
  secret: string,
  payload: string | Uint8Array,
  signature: string,
): Promise<boolean> {
  try {
    assertArguments('verify', { secret, payload, signature }, true);
  } catch (error) {
    return Promise.reject(error);
  }
  if (!isWellFormedSignature(signature)) return Promise.resolve(false);
  const expected = signature.slice(PREFIX_LENGTH);
  const digest = backend.hmacHex(secret, payload);
  // node:crypto answers synchronously: skip a needless await.
  if (typeof digest === 'string') return Promise.resolve(constantTimeEqual(digest, expected));
  return digest.then((hex) => constantTimeEqual(hex, expected));
}
