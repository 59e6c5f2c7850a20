import { checkSignature } from './check-signature.js';
import type { HmacBackend } from './hmac-backend.js';

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
    // node:crypto answers synchronously: no needless await.
    return Promise.resolve(checkSignature(backend, secret, payload, signature));
  } catch (error) {
    return Promise.reject(error);
  }
}
