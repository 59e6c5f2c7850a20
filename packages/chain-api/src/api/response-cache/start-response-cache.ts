import type { ReadDb } from '../queries/prepared-query.js';
import { invalidationOf } from './cache-deps.js';
import { LivePrices } from './live-prices.js';
import { ResponseCache } from './response-cache.js';
import type { ResponseCaching } from './send-cached.js';
import { followStoreChanges, type SubscribeStoreChanges } from './store-changes.js';

export interface ResponseCacheConfig {
  maxBytes: number;
  maxAgeMs: number;
  /**
   * `scoped` (default): a change drops the answers of what it names and prices are applied at
   * response time. `global`: any change drops every answer (the design before scoped invalidation, kept
   * for comparison).
   */
  invalidation?: 'scoped' | 'global' | undefined;
}

/**
 * The response cache with its change feed: each store change drops what it names (or
 * everything, in `global` mode), a price change re-prices live answers, and a gap in delivery
 * forgets everything. `db` serves the live prices' reads (the same reads answers use).
 *
 * @example
 * const cache = await startResponseCache(db, { maxBytes: 64 << 20, maxAgeMs: 30_000 }, listenOnDatabase(db));
 */
export async function startResponseCache(
  db: ReadDb,
  config: ResponseCacheConfig,
  subscribe: SubscribeStoreChanges,
): Promise<{ caching: ResponseCaching; close(): Promise<void> }> {
  const { rows } = await db.query<{ schema: string }>('select current_schema() as schema');
  const cache = new ResponseCache(config);
  const prices = config.invalidation === 'global' ? undefined : new LivePrices(db);
  const feed = await followStoreChanges({
    schema: rows[0]?.schema ?? 'public',
    subscribe,
    onChange(change) {
      const inv = prices ? invalidationOf(change) : 'all';
      if (inv === 'all') {
        prices?.reset();
        cache.clear();
        return;
      }
      // Prices first: an answer re-rendered right after must not see the old ones.
      for (const chain of change.chains) prices?.apply(chain);
      cache.invalidate(inv);
    },
    onReset() {
      prices?.reset();
      cache.clear();
    },
  });
  return { caching: { cache, following: feed.following, prices }, close: () => feed.close() };
}
