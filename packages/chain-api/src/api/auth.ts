import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { hashApiKey } from '../keys/api-key-format.js';
import type { ActiveKey, KeyStore } from '../keys/key-store.js';
import { ApiError } from './errors.js';
import type { KeyLookupLimit } from './key-lookup-guard.js';

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
  /**
   * The active key `key` names, or undefined. `clientIp` is charged one lookup when the store
   * must be asked (a 429 `ApiError` once its budget is spent).
   */
  verify(key: string, clientIp?: string): Promise<ActiveKey | undefined>;
}

export interface KeyVerifierOptions {
  /** How long a found key is trusted without asking the store (default 5 s). */
  cacheTtlMs?: number;
  maxEntries?: number;
  /** How long an unknown key hash is answered 401 from memory (default 30 s; 0: off). */
  unknownKeyTtlMs?: number;
  /** Most unknown hashes remembered (least recently seen dropped first; default 10,000). */
  unknownKeyEntries?: number;
  /** Per-client bound on store lookups; absent: unbounded. */
  lookupLimit?: KeyLookupLimit;
}

/**
 * Checks presented keys against the hashed store, caching hits for `cacheTtlMs` so the hot path
 * costs one SHA-256 and a map lookup. A revoked key stops working within that time. Unknown
 * keys are remembered too (bounded, shortly), and each client address may cause only so many
 * store lookups per window, so floods of made-up keys cost no database queries.
 */
export function createKeyVerifier(
  store: Pick<KeyStore, 'findActiveByHash'>,
  opts: KeyVerifierOptions = {},
): KeyVerifier {
  const ttl = opts.cacheTtlMs ?? 5_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const unknownTtl = opts.unknownKeyTtlMs ?? 30_000;
  const unknownEntries = opts.unknownKeyEntries ?? 10_000;
  const cache = new Map<string, { key: ActiveKey; expires: number }>();
  // Insertion order is recency order: a hit is re-inserted, the oldest entry goes first.
  const unknown = new Map<string, number>();

  const knownUnknown = (hash: string, now: number): boolean => {
    const expires = unknown.get(hash);
    if (expires === undefined) return false;
    unknown.delete(hash);
    if (expires < now) return false;
    unknown.set(hash, expires);
    return true;
  };
  const rememberUnknown = (hash: string, now: number) => {
    if (unknownTtl <= 0) return;
    unknown.delete(hash);
    unknown.set(hash, now + unknownTtl);
    while (unknown.size > unknownEntries) {
      const oldest = unknown.keys().next().value as string;
      unknown.delete(oldest);
    }
  };

  const inFlight = new Map<string, Promise<ActiveKey | undefined>>();
  const lookUp = async (hash: string, now: number, clientIp: string | undefined) => {
    const limit = clientIp === undefined ? undefined : opts.lookupLimit;
    limit?.check(clientIp as string);
    const active = await store.findActiveByHash(hash);
    if (!active) {
      rememberUnknown(hash, now);
      await limit?.take(clientIp as string);
      return undefined;
    }
    if (cache.size >= maxEntries) cache.clear();
    cache.set(hash, { key: active, expires: now + ttl });
    return active;
  };

  return {
    async verify(key, clientIp) {
      if (key.length > maxKeyLength) return undefined;
      const hash = hashApiKey(key);
      const now = Date.now();
      let found = cache.get(hash);
      if (!found || found.expires < now) {
        cache.delete(hash);
        if (knownUnknown(hash, now)) return undefined;
        // Concurrent requests with the same key share one lookup (and count once).
        let lookup = inFlight.get(hash);
        if (!lookup) {
          lookup = lookUp(hash, now, clientIp).finally(() => inFlight.delete(hash));
          inFlight.set(hash, lookup);
        }
        const active = await lookup;
        if (!active) return undefined;
        found = { key: active, expires: now + ttl };
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
    // request.ip follows TRUST_PROXY: X-Forwarded-For only behind a proxy the operator declared.
    const active = await verifier.verify(key, request.ip);
    if (!active) throw new ApiError('UNAUTHORIZED', 'invalid API Key');
    request.apiKey = active;
  };
}
