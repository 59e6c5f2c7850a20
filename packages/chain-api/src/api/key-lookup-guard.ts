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
  /** Counts one lookup for `ip`; throws the 429 once the window's budget is spent. */
  take(ip: string): Promise<void>;
}

/**
 * Bounds how many key-store lookups a client address can cause, so a flood of made-up keys gets
 * 429s instead of a database query each. Only lookups count (keys already known, good or bad,
 * are answered from memory), so clients using real keys never reach the bound.
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
  return {
    take(ip) {
      return new Promise((resolve, reject) => {
        store.incr(
          ip,
          (error, result) => {
            // Counting failed (Redis and memory both): let the lookup happen, as rate limits do.
            if (error || !result) return resolve();
            if (result.current <= opts.perIp) return resolve();
            const seconds = Math.max(1, Math.ceil(result.ttl / 1000));
            reject(
              new ApiError('RATE_LIMITED', rateLimited(seconds, opts.contact).message, {
                'retry-after': String(seconds),
                'x-ratelimit-limit': String(opts.perIp),
                'x-ratelimit-remaining': '0',
                'x-ratelimit-reset': String(seconds),
              }),
            );
          },
          opts.windowMs,
          opts.perIp,
        );
      });
    },
  };
}
