import { checkSignatureWithFallback } from './check-signature.js';
import { getDefaultHmacBackend } from './default-hmac-backend.js';

/**
 * `verify()` against `secret`, then each of `additionalSecrets` in order: for rotating a secret
 * without dropping deliveries signed with the old one.
 *
 * @example
 * ```ts
 * import { verifyWithFallback } from '@sluice/webhooks/methods';
 * await verifyWithFallback(newSecret, payload, signature, [oldSecret]);
 * ```
 */
export async function verifyWithFallback(
  secret: string,
  payload: string | Uint8Array,
  signature: string,
  additionalSecrets?: ReadonlyArray<string>,
): Promise<boolean> {
  return checkSignatureWithFallback(
    getDefaultHmacBackend(),
    secret,
    payload,
    signature,
    additionalSecrets,
  );
}
