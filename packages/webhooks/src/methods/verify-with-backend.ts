import { assertArguments } from './assert-arguments.js';
import type { HmacBackend } from './hmac-backend.js';
import { parseSignature } from './signature-format.js';

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
  const expected = parseSignature(signature);
  // Malformed signatures are rejected before any HMAC work; the format is public, not secret.
  if (expected === null) return Promise.resolve(false);
  const digest = backend.hmac(secret, payload);
  // node:crypto answers synchronously: skip a needless await.
  if (digest instanceof Uint8Array) return Promise.resolve(backend.equal(digest, expected));
  return digest.then((bytes) => backend.equal(bytes, expected));
}
