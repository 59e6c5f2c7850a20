import { VERSION } from '../version.js';
import { getDefaultHmacBackend } from './default-hmac-backend.js';
import { verifyWithBackend } from './verify-with-backend.js';

/**
 * Checks a signature in constant time. Resolves `false` for any signature that is not
 * `sha256=` + 64 lowercase hex digits of the payload's HMAC (wrong prefix, `sha1=`, wrong length,
 * uppercase, non-hex); rejects with a `TypeError` only when an argument is missing.
 *
 * @example
 * ```ts
 * import { verify } from '@sluice/webhooks/methods';
 * if (!(await verify(secret, rawBody, request.headers['x-hub-signature-256']))) {
 *   // reject the delivery
 * }
 * ```
 */
export function verify(
  secret: string,
  payload: string | Uint8Array,
  signature: string,
): Promise<boolean> {
  return verifyWithBackend(getDefaultHmacBackend(), secret, payload, signature);
}

/** The package version, as `@octokit/webhooks-methods` exposes `verify.VERSION`. */
verify.VERSION = VERSION;
