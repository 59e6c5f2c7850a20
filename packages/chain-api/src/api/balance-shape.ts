import type { ChainConfig } from '../chains/chain-config.js';
import { setIfPresent, usdValue } from '../shape/format.js';
import type { PriceAtRequest, PricingLookups } from './context.js';
import type { BalanceRow } from './queries/balances-query.js';
import type { PriceLookup } from './response-cache/live-prices.js';

export type BalanceMetadataField = 'logo' | 'url' | 'pools';

export interface BalanceShapeOptions {
  historicalOffsets?: number[] | undefined;
  metadata?: BalanceMetadataField[] | undefined;
  /** Pool size under which low_liquidity is true when pricing has no flag. */
  lowLiquidityUsd: number;
}

/**
 * Historical USD prices of every (row, offset) in one lookup, row-major: `history[row * offsets
 * + j]` (empty without offsets).
 *
 * @example
 * const history = await loadBalanceHistory(rows, [1, 24], new Date(), ctx.pricing);
 */
export async function loadBalanceHistory(
  rows: readonly BalanceRow[],
  offsets: readonly number[] | undefined,
  requestTime: Date,
  pricing: PricingLookups | undefined,
): Promise<(number | null)[]> {
  if (!offsets || rows.length === 0 || !pricing) return [];
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
  return pricing.historicalPricesAt
    ? await pricing.historicalPricesAt(requests)
    : await pricing.pricesAt(requests);
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
  const history = await loadBalanceHistory(rows, opts.historicalOffsets, requestTime, pricing);
  return shapeBalanceRows(rows, chains, opts, history, pricing);
}

/**
 * The rows with the current prices of `prices` in place of those the query joined (pool columns
 * only when the query selected them).
 *
 * @example
 * const priced = withLivePrices(rows, prices.lookup, false);
 */
export function withLivePrices(
  rows: readonly BalanceRow[],
  prices: PriceLookup,
  withPools: boolean,
): BalanceRow[] {
  return rows.map((row) => {
    const p = prices(row.chain_id, row.address);
    const priced: BalanceRow = {
      ...row,
      price_usd: p?.price_usd ?? null,
      pool_size: p?.pool_size ?? null,
      low_liquidity: p?.low_liquidity ?? null,
    };
    if (withPools) {
      priced.pool_type = p?.pool_type ?? null;
      priced.pool_address = p?.pool_address ?? null;
      priced.pool_tokens = p?.pool_tokens ?? null;
    }
    return priced;
  });
}

/** The (chain → tokens) whose current prices balance rows show. */
export function balanceTokens(rows: readonly BalanceRow[]): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const row of rows) {
    const list = out.get(row.chain_id);
    if (list) list.push(row.address);
    else out.set(row.chain_id, [row.address]);
  }
  return out;
}

/** Balance rows as the peer's balance objects, with historical prices already looked up. */
export function shapeBalanceRows(
  rows: readonly BalanceRow[],
  chains: ReadonlyMap<number, ChainConfig>,
  opts: BalanceShapeOptions,
  history: readonly (number | null)[],
  pricing: PricingLookups | undefined,
): Record<string, unknown>[] {
  const offsets = opts.historicalOffsets;
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
        setIfPresent(
          tokenMetadata,
          'logo',
          links?.logo ?? (native ? (chain.nativeLogoUrl ?? chain.logoUrl) : undefined),
        );
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
