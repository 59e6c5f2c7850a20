import { verify } from './verify.js';

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
  if (await verify(secret, payload, signature)) return true;
  if (additionalSecrets === undefined || additionalSecrets === null) return false;
  for (const fallback of additionalSecrets) {
    if (await verify(fallback, payload, signature)) return true;
  }
  return false;
}
