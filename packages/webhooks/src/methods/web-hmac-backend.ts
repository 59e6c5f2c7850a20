import type { HmacBackend } from './hmac-backend.js';
import { toHex } from './to-hex.js';

const encoder = new TextEncoder();

/** Imported keys kept per secret: importKey costs more than the HMAC of a typical payload. */
const MAX_CACHED_KEYS = 32;

/**
 * The Web Crypto (`crypto.subtle`) backend for Web-standard runtimes. Imported keys are cached
 * per secret (a few at most; oldest evicted first).
 *
 * @example
 * ```ts
 * const backend = createWebHmacBackend();
 * const digest = await backend.hmacHex('secret', '{"zen":"hi"}');
 * ```
 */
export function createWebHmacBackend(subtle: SubtleCrypto = globalThis.crypto.subtle): HmacBackend {
  const keys = new Map<string, Promise<CryptoKey>>();

  const importKey = (secret: string): Promise<CryptoKey> => {
    let key = keys.get(secret);
    if (key === undefined) {
      if (keys.size >= MAX_CACHED_KEYS) {
        const oldest = keys.keys().next().value;
        if (oldest !== undefined) keys.delete(oldest);
      }
      key = subtle.importKey(
        'raw',
        encoder.encode(secret),
        { name: 'HMAC', hash: 'SHA-256' },
        false,
        ['sign'],
      );
      // A failed import must not poison the cache.
      key.catch(() => keys.delete(secret));
      keys.set(secret, key);
    }
    return key;
  };

  return {
    name: 'web',
    async hmacHex(secret, payload) {
      const data = typeof payload === 'string' ? encoder.encode(payload) : payload;
      const digest = await subtle.sign(
        'HMAC',
        await importKey(secret),
        data as Uint8Array<ArrayBuffer>,
      );
      return toHex(new Uint8Array(digest));
    },
  };
}
