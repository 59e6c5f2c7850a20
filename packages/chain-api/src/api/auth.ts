import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { hashApiKey } from '../keys/api-key-format.js';
import type { ActiveKey, KeyStore } from '../keys/key-store.js';
import { ApiError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated key (set by the auth hook on /v1 routes). */
    apiKey: ActiveKey | null;
  }
}

/** Longest key we bother hashing; anything longer is invalid without touching the store. */
const maxKeyLength = 256;

/** The key a request presents: `X-Sim-Api-Key` (peer compatible) or `Authorization: Bearer`. */
export function presentedKey(headers: FastifyRequest['headers']): string | undefined {
  const simKey = headers['x-sim-api-key'];
  if (typeof simKey === 'string' && simKey.trim() !== '') return simKey.trim();
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  return undefined;
}

export interface KeyVerifier {
  verify(key: string): Promise<ActiveKey | undefined>;
}

/**
 * Checks presented keys against the hashed store, caching hits for `cacheTtlMs` so the hot path
 * costs one SHA-256 and a map lookup. A revoked key stops working within that time.
 */
export function createKeyVerifier(
  store: Pick<KeyStore, 'findActiveByHash'>,
  opts: { cacheTtlMs?: number; maxEntries?: number } = {},
): KeyVerifier {
  const ttl = opts.cacheTtlMs ?? 5_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const cache = new Map<string, { key: ActiveKey; expires: number }>();

  return {
    async verify(key) {
      if (key.length > maxKeyLength) return undefined;
      const hash = hashApiKey(key);
      const now = Date.now();
      let found = cache.get(hash);
      if (!found || found.expires < now) {
        cache.delete(hash);
        const active = await store.findActiveByHash(hash);
        if (!active) return undefined;
        if (cache.size >= maxEntries) cache.clear();
        found = { key: active, expires: now + ttl };
        cache.set(hash, found);
      }
      // The lookup is by hash; confirm with a constant-time comparison of the full digests.
      const given = Buffer.from(hash, 'hex');
      const stored = Buffer.from(found.key.hash, 'hex');
      if (given.length !== stored.length || !timingSafeEqual(given, stored)) return undefined;
      return found.key;
    },
  };
}

/** onRequest hook: 401 `{error}` unless the request carries an active key. */
export function requireApiKey(verifier: KeyVerifier): onRequestAsyncHookHandler {
  return async (request) => {
    const key = presentedKey(request.headers);
    if (key === undefined) {
      throw new ApiError(
        'UNAUTHORIZED',
        'missing API Key: send it in the X-Sim-Api-Key header or as Authorization: Bearer <key>',
      );
    }
    const active = await verifier.verify(key);
    if (!active) throw new ApiError('UNAUTHORIZED', 'invalid API Key');
    request.apiKey = active;
  };
}
