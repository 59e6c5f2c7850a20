import type { Redis } from 'ioredis';
import { ApiError, rateLimited } from './errors.js';
import { counterStore } from './rate-limit-store.js';

/** Key-store lookups one client address may cause per window (cache misses only). */
export interface KeyLookupLimitOptions {
  perIp: number;
  windowMs: number;
  /** Shared counters across replicas; this process's memory when absent. */
  redis?: Redis | undefined;
  namespace?: string;
  contact?: string;
  onRedisFallback?: (error: Error | undefined) => void;
}

export interface KeyLookupLimit {
  /** Throws the 429 while `ip` has spent its window's budget of failed lookups. */
  check(ip: string): void;
  /** Counts one failed lookup (an unknown key) for `ip`; throws the 429 past the budget. */
  take(ip: string): Promise<void>;
}

/**
 * Bounds how many failed key-store lookups (unknown keys) a client address can cause, so a flood
 * of made-up keys gets 429s instead of a database query each. Only failures count, so clients
 * using real keys never reach the bound, even with the key cache off (KEY_CACHE_TTL_MS=0).
 *
 * @example
 * const limit = createKeyLookupLimit({ perIp: 120, windowMs: 60_000 });
 * await limit.take(request.ip);
 */
export function createKeyLookupLimit(opts: KeyLookupLimitOptions): KeyLookupLimit {
  const store = counterStore(
    opts.redis,
    opts.namespace ?? 'sluice-key-lookups:',
    opts.onRedisFallback ?? (() => {}),
  );
  // Addresses that spent their budget, until their window ends: refused before any lookup.
  const blocked = new Map<string, number>();
  const refusal = (seconds: number) =>
    new ApiError('RATE_LIMITED', rateLimited(seconds, opts.contact).message, {
      'retry-after': String(seconds),
      'x-ratelimit-limit': String(opts.perIp),
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(seconds),
    });
  return {
    check(ip) {
      const until = blocked.get(ip);
      if (until === undefined) return;
      const left = until - Date.now();
      if (left <= 0) blocked.delete(ip);
      else throw refusal(Math.max(1, Math.ceil(left / 1000)));
    },
    take(ip) {
      return new Promise((resolve, reject) => {
        store.incr(
          ip,
          (error, result) => {
            // Counting failed (Redis and memory both): let the lookup happen, as rate limits do.
            if (error || !result) return resolve();
            if (result.current >= opts.perIp) {
              if (blocked.size >= 10_000) blocked.clear();
              blocked.set(ip, Date.now() + result.ttl);
            }
            if (result.current <= opts.perIp) return resolve();
            reject(refusal(Math.max(1, Math.ceil(result.ttl / 1000))));
          },
          opts.windowMs,
          opts.perIp,
        );
      });
    },
  };
}
