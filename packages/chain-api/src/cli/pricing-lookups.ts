import type { Queryable } from '@sluice/db';
import type { PricingLookups } from '../api/context.js';
import { memoizedPricesAt, type PricingLookupOptions } from '../api/price-memo.js';
import { preparedQuery, type ReadDb } from '../api/queries/prepared-query.js';
import type { ChainConfig } from '../chains/index.js';
import { createHistoricalPriceCache } from '../pricing/historical-price-cache.js';
import { pricesAt } from '../pricing/price-queries.js';
import { createTokenMetadataLookup } from '../pricing/token-metadata.js';

/**
 * The pricing reads the API needs (prices at times, logos/links): queries, no worker. A
 * request's copy (`readingFrom`) sends its statements through the request's view of the store
 * and shares the memos.
 */
export function pricingLookups(
  db: ReadDb,
  chains: readonly ChainConfig[],
  opts: PricingLookupOptions = {},
): PricingLookups {
  const links = createTokenMetadataLookup(chains);
  // historical_prices asks for "now - N hours": minute resolution, settled minutes memoized.
  const history = createHistoricalPriceCache(db);
  const own = prepared(db);
  const memo = memoizedPricesAt((items) => pricesAt(own, items), opts);
  const tokenLinks = (chainId: number, token: string) => links.get(chainId, token);
  const lookups = (from: ReadDb | undefined): PricingLookups => ({
    pricesAt: from ? (items) => memo(items, (m) => pricesAt(prepared(from), m)) : memo,
    historicalPricesAt: (items) => history.pricesAt(items, from),
    tokenLinks,
    readingFrom: lookups,
  });
  return lookups(undefined);
}

/**
 * The one statement of pricesAt, prepared per connection: parsing and planning it cost more than
 * running it for the few prices an activity page asks.
 */
function prepared(db: ReadDb): Queryable {
  return {
    query: <Row>(sql: string, params?: unknown[]) => preparedQuery<Row>(db, sql, params ?? []),
    exec: (sql) => db.exec(sql),
  };
}
