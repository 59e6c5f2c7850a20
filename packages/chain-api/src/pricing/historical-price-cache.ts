import type { Queryable } from '@sluice/db';
import { type PriceAtQuery, pricesAt } from './price-queries.js';

export interface HistoricalPriceCacheOptions {
  /** Entries kept (least recently used evicted); default 200,000. */
  maxEntries?: number;
  /** Times newer than this are never cached (a reorg could still change them); default 15 min. */
  settledAfterMs?: number;
  now?: () => number;
}

/** `pricesAt` for `historical_prices`, resolved to the minute and memoized. */
export interface HistoricalPriceCache {
  /** `db`: where to read what the cache lacks, when not the cache's own (a request's view). */
  pricesAt(queries: readonly PriceAtQuery[], db?: Queryable): Promise<(number | null)[]>;
  readonly size: number;
  clear(): void;
}

const MINUTE = 60_000;

/**
 * Memoizes "price at or before T" for `historical_prices`: each T is rounded down to its minute,
 * and answers for minutes older than `settledAfterMs` are cached, since the points at or before a
 * settled minute no longer change (reorgs only touch recent blocks; compaction only lowers the
 * resolution, so a cached answer is the finer one). A 1,000-token wallet asking
 * for 1,24,168 hours then costs one SQL statement per minute instead of one per request.
 *
 * @example
 * const cache = createHistoricalPriceCache(db);
 * const [p] = await cache.pricesAt([{ chainId: 1, token, time: new Date(Date.now() - 3_600_000) }]);
 */
export function createHistoricalPriceCache(
  db: Queryable,
  opts: HistoricalPriceCacheOptions = {},
): HistoricalPriceCache {
  const maxEntries = opts.maxEntries ?? 200_000;
  const settledAfterMs = opts.settledAfterMs ?? 15 * MINUTE;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, number | null>();
  // Settled keys being fetched right now: concurrent requests (50 clients crossing a minute
  // boundary together) wait for the one query instead of each sending its own.
  const inflight = new Map<string, Promise<number | null>>();

  return {
    async pricesAt(queries, from = db) {
      const out: (number | null)[] = new Array(queries.length).fill(null);
      const settled = now() - settledAfterMs;
      const missing: PriceAtQuery[] = [];
      const missingAt: number[] = [];
      const missingKeys: (string | null)[] = [];
      const waits: Promise<void>[] = [];
      queries.forEach((q, i) => {
        const minute = Math.floor(q.time.getTime() / MINUTE) * MINUTE;
        const key = minute < settled ? `${q.chainId}:${q.token.toLowerCase()}:${minute}` : null;
        if (key !== null && cache.has(key)) {
          const v = cache.get(key) ?? null;
          // refresh recency
          cache.delete(key);
          cache.set(key, v);
          out[i] = v;
          return;
        }
        const pending = key === null ? undefined : inflight.get(key);
        if (pending) {
          waits.push(
            pending.then((v) => {
              out[i] = v;
            }),
          );
          return;
        }
        missing.push({ chainId: q.chainId, token: q.token, time: new Date(minute) });
        missingAt.push(i);
        missingKeys.push(key);
      });
      if (missing.length > 0) {
        const batch = pricesAt(from, missing);
        const mine = new Map<string, Promise<number | null>>();
        missingKeys.forEach((key, j) => {
          if (key === null || mine.has(key)) return;
          const one = batch.then((fresh) => fresh[j] ?? null);
          // Waiters see a failure through their own await; nobody waiting must not crash.
          one.catch(() => {});
          mine.set(key, one);
          inflight.set(key, one);
        });
        try {
          const fresh = await batch;
          fresh.forEach((v, j) => {
            out[missingAt[j]!] = v;
            const key = missingKeys[j];
            if (key) cache.set(key, v);
          });
        } finally {
          for (const [key, one] of mine) if (inflight.get(key) === one) inflight.delete(key);
        }
        while (cache.size > maxEntries) {
          const oldest = cache.keys().next().value;
          if (oldest === undefined) break;
          cache.delete(oldest);
        }
      }
      await Promise.all(waits);
      return out;
    },
    get size() {
      return cache.size;
    },
    clear() {
      cache.clear();
    },
  };
}
