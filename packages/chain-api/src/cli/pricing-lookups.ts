import type { Queryable } from '@sluice/db';
import type { PricingLookups } from '../api/context.js';
import { memoizedPricesAt, type PricingLookupOptions } from '../api/price-memo.js';
import type { ChainConfig } from '../chains/index.js';
import { createHistoricalPriceCache } from '../pricing/historical-price-cache.js';
import { pricesAt } from '../pricing/price-queries.js';
import { createTokenMetadataLookup } from '../pricing/token-metadata.js';

/** The pricing reads the API needs (prices at times, logos/links): queries, no worker. */
export function pricingLookups(
  db: Queryable,
  chains: readonly ChainConfig[],
  opts: PricingLookupOptions = {},
): PricingLookups {
  const links = createTokenMetadataLookup(chains);
  // historical_prices asks for "now - N hours": minute resolution, settled minutes memoized.
  const history = createHistoricalPriceCache(db);
  return {
    pricesAt: memoizedPricesAt((items) => pricesAt(db, items), opts),
    historicalPricesAt: (items) => history.pricesAt(items),
    tokenLinks: (chainId, token) => links.get(chainId, token),
  };
}
