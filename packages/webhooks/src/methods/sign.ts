import { VERSION } from '../version.js';
import { getDefaultHmacBackend } from './default-hmac-backend.js';
import { signWithBackend } from './sign-with-backend.js';

/**
 * Signs a payload: `sha256=` + lowercase hex HMAC-SHA256 of its exact bytes (strings as UTF-8).
 * Rejects with a `TypeError` when the secret or payload is missing.
 *
 * @example
 * ```ts
 * import { sign } from '@sluice/webhooks/methods';
 * const signature = await sign('my-secret', JSON.stringify({ zen: 'Keep it logically awesome.' }));
 * // 'sha256=…'
 * ```
 */
export function sign(secret: string, payload: string | Uint8Array): Promise<string> {
  return signWithBackend(getDefaultHmacBackend(), secret, payload);
}

/** The package version, as `@octokit/webhooks-methods` exposes `sign.VERSION`. */
sign.VERSION = VERSION;
