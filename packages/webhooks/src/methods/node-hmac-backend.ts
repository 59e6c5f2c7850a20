import type * as NodeCrypto from 'node:crypto';
import type { HmacBackend } from './hmac-backend.js';

type NodeCryptoModule = typeof NodeCrypto;

/** Key objects kept per secret (a few at most; oldest evicted first). */
const MAX_CACHED_KEYS = 32;

/**
 * node:crypto without a static import, so the module also loads on Web-standard runtimes:
 * `process.getBuiltinModule` exists on Node >= 20.16, Deno and Bun.
 */
function loadNodeCrypto(): NodeCryptoModule | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const crypto = proc?.getBuiltinModule?.('node:crypto') as NodeCryptoModule | undefined;
  return typeof crypto?.createHmac === 'function' ? crypto : undefined;
}

/**
 * The node:crypto backend, or `undefined` where node:crypto is not available. Each secret is
 * turned into a `KeyObject` once, so a delivery does not re-encode the secret.
 *
 * @example
 * ```ts
 * const backend = createNodeHmacBackend() ?? createWebHmacBackend();
 * ```
 */
export function createNodeHmacBackend(
  crypto: NodeCryptoModule | null = loadNodeCrypto() ?? null,
): HmacBackend | undefined {
  if (crypto === null) return undefined;
  const { createHmac, createSecretKey } = crypto;
  const keys = new Map<string, NodeCrypto.KeyObject>();
  const keyFor = (secret: string): NodeCrypto.KeyObject | string => {
    if (typeof createSecretKey !== 'function' || typeof secret !== 'string') return secret;
    let key = keys.get(secret);
    if (key === undefined) {
      if (keys.size >= MAX_CACHED_KEYS) {
        const oldest = keys.keys().next().value;
        if (oldest !== undefined) keys.delete(oldest);
      }
      key = createSecretKey(secret, 'utf8');
      keys.set(secret, key);
    }
    return key;
  };
  return {
    name: 'node',
    // Hex straight from OpenSSL is cheaper than a digest Buffer plus hex parsing.
    hmacHex: (secret, payload) =>
      createHmac('sha256', keyFor(secret)).update(payload).digest('hex'),
  };
}
