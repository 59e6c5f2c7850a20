import type { Queryable } from '@sluice/db';
import type { PricingLookups } from '../api/context.js';
import type { ChainConfig } from '../chains/index.js';
import { pricesAt } from '../pricing/price-queries.js';
import { createTokenMetadataLookup } from '../pricing/token-metadata.js';

/** The pricing reads the API needs (history, logos/links): plain queries, no worker. */
export function pricingLookups(db: Queryable, chains: readonly ChainConfig[]): PricingLookups {
  const links = createTokenMetadataLookup(chains);
  return {
    pricesAt: (items) => pricesAt(db, items),
    tokenLinks: (chainId, token) => links.get(chainId, token),
  };
}
