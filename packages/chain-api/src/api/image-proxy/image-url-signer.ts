import { createHmac, timingSafeEqual } from 'node:crypto';

/** Issues and checks the image proxy's URLs, so it only fetches what this API handed out. */
export interface ImageUrlSigner {
  /** `/images/v1/<mac>?url=<target>`, relative to the server's origin. */
  sign(target: string): string;
  /** Whether `mac` is this server's signature of `target` (constant-time). */
  verify(mac: string, target: string): boolean;
}

const macLength = 16; // bytes, as the cursors' tags
const macPattern = /^[A-Za-z0-9_-]{22}$/;

/**
 * Signs proxy URLs with a key derived from the API's cursor secret (`api_settings` or
 * CURSOR_SECRET), so every replica on one database accepts the same URLs and nothing new needs
 * configuring; the derivation keeps cursor tags and image tags apart.
 *
 * @example
 * const signer = createImageUrlSigner(cursorSecret);
 * signer.sign('ipfs://Qm.../1.png'); // '/images/v1/AbC...?url=ipfs%3A%2F%2FQm...%2F1.png'
 */
export function createImageUrlSigner(secret: string | Uint8Array): ImageUrlSigner {
  if (secret.length < 16) throw new Error('image proxy secret must be at least 16 bytes');
  const key = createHmac('sha256', secret).update('sluice image proxy v1').digest();
  const mac = (target: string) =>
    createHmac('sha256', key).update(target).digest().subarray(0, macLength);
  return {
    sign(target) {
      return `/images/v1/${mac(target).toString('base64url')}?url=${encodeURIComponent(target)}`;
    },
    verify(given, target) {
      if (!macPattern.test(given)) return false;
      const expected = mac(target);
      const presented = Buffer.from(given, 'base64url');
      return presented.length === expected.length && timingSafeEqual(presented, expected);
    },
  };
}
