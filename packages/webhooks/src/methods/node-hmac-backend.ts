import type * as NodeCrypto from 'node:crypto';
import type { HmacBackend } from './hmac-backend.js';

type NodeCryptoModule = typeof NodeCrypto;

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
 * The node:crypto backend, or `undefined` where node:crypto is not available.
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
  const { createHmac } = crypto;
  return {
    name: 'node',
    // Hex straight from OpenSSL is cheaper than a digest Buffer plus hex parsing.
    hmacHex: (secret, payload) => createHmac('sha256', secret).update(payload).digest('hex'),
  };
}
