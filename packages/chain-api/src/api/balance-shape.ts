import type { ChainConfig } from '../chains/chain-config.js';
import type { PriceAtRequest, PricingLookups } from './context.js';
import { setIfPresent, usdValue } from './format.js';
import type { BalanceRow } from './queries/balances-query.js';

export type BalanceMetadataField = 'logo' | 'url' | 'pools';

export interface BalanceShapeOptions {
  historicalOffsets?: number[] | undefined;
  metadata?: BalanceMetadataField[] | undefined;
  /** Pool size under which low_liquidity is true when pricing has no flag. */
  lowLiquidityUsd: number;
}

/**
 * Maps balance rows to the peer's balance objects, fetching historical prices for every
 * (row, offset) in one lookup.
 */
export async function shapeBalances(
  rows: readonly BalanceRow[],
  chains: ReadonlyMap<number, ChainConfig>,
  opts: BalanceShapeOptions,
  requestTime: Date,
  pricing: PricingLookups | undefined,
): Promise<Record<string, unknown>[]> {
  let history: (number | null)[] = [];
  const offsets = opts.historicalOffsets;
  if (offsets && rows.length > 0 && pricing) {
    const requests: PriceAtRequest[] = [];
    for (const row of rows) {
      for (const hours of offsets) {
        requests.push({
          chainId: row.chain_id,
          token: row.address,
          time: new Date(requestTime.getTime() - hours * 3_600_000),
        });
      }
    }
    history = pricing.historicalPricesAt
      ? await pricing.historicalPricesAt(requests)
      : await pricing.pricesAt(requests);
  }
  const metadata = new Set(opts.metadata ?? []);

  return rows.map((row, index) => {
    const chain = chains.get(row.chain_id)!;
    const native = row.kind === 0;
    const balance: Record<string, unknown> = {
      chain: chain.name,
      chain_id: row.chain_id,
      address: row.address,
      amount: row.amount,
    };
    const decimals = native ? chain.nativeDecimals : row.decimals;
    setIfPresent(balance, 'symbol', native ? chain.nativeSymbol : row.symbol);
    setIfPresent(balance, 'name', native ? chain.nativeName : row.name);
    setIfPresent(balance, 'decimals', decimals);
    if (row.price_usd !== null) {
      balance.price_usd = row.price_usd;
      if (decimals !== null) balance.value_usd = usdValue(row.amount, decimals, row.price_usd);
    }
    setIfPresent(balance, 'pool_size', row.pool_size);
    if (row.low_liquidity !== null) balance.low_liquidity = row.low_liquidity;
    else if (!native) balance.low_liquidity = (row.pool_size ?? 0) < opts.lowLiquidityUsd;

    if (offsets) {
      const points: { offset_hours: number; price_usd: number }[] = [];
      offsets.forEach((hours, j) => {
        const price = history[index * offsets.length + j];
        if (price !== null && price !== undefined)
          points.push({ offset_hours: hours, price_usd: price });
      });
      balance.historical_prices = points;
    }
    if (metadata.has('logo') || metadata.has('url')) {
      const links = pricing?.tokenLinks(row.chain_id, row.address);
      const tokenMetadata: Record<string, unknown> = {};
      if (metadata.has('logo'))
        setIfPresent(tokenMetadata, 'logo', links?.logo ?? (native ? chain.logoUrl : undefined));
      if (metadata.has('url')) setIfPresent(tokenMetadata, 'url', links?.url);
      if (Object.keys(tokenMetadata).length > 0) balance.token_metadata = tokenMetadata;
    }
    if (metadata.has('pools') && row.pool_address && row.pool_type) {
      balance.pool = {
        pool_type: row.pool_type,
        address: row.pool_address,
        chain_id: row.chain_id,
        tokens: row.pool_tokens ?? [],
      };
    }
    return balance;
  });
}
