import { assertArguments } from './assert-arguments.js';
import type { HmacBackend } from './hmac-backend.js';

/**
 * `sign()` on an explicit backend (node:crypto or crypto.subtle).
 *
 * @example
 * ```ts
 * await signWithBackend(createWebHmacBackend(), 'secret', '{}');
 * ```
 */
export async function signWithBackend(
  backend: HmacBackend,
  secret: string,
  payload: string | Uint8Array,
): Promise<string> {
  assertArguments('sign', { secret, payload });
  return `sha256=${await backend.hmacHex(secret, payload)}`;
}
