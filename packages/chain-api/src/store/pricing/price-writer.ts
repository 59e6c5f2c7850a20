import type { Queryable } from '@sluice/db';

/** What the store keeps of a token's price (the pricing route's answer). */
export interface StoredPrice {
  token: string;
  priceUsd: number | null;
  poolSize: number | null;
  lowLiquidity: boolean;
  pool: { address: string; type: string; tokens: readonly [string, string] } | null;
  quote: string;
  priceInQuote: number;
  quoteLiquidity: number;
  route: readonly string[];
}

/** One token's price as of one block. */
export interface PricePoint<P extends StoredPrice = StoredPrice> {
  token: string;
  blockNumber: bigint;
  time: Date;
  price: P;
}

/** The liquidity thresholds a re-pricing applies (USD). */
export interface LiquidityThresholds {
  minLiquidityUsd: number;
  lowLiquidityUsd: number;
}

/**
 * Appends price history points (one per token per block; a rewrite of the same block wins).
 *
 * @example
 * await insertPriceHistory(tx, 1, [{ token, blockNumber: 10n, time, price }]);
 */
export async function insertPriceHistory(
  tx: Queryable,
  chainId: number,
  points: readonly PricePoint[],
): Promise<void> {
  if (points.length === 0) return;
  await tx.query(
    `insert into price_history
       (chain_id, token, block_number, time, price_usd, pool_size, quote, price_in_quote, pool_address)
     select $1, * from unnest($2::text[], $3::bigint[], $4::timestamptz[], $5::float8[], $6::float8[],
                              $7::text[], $8::float8[], $9::text[])
     on conflict (chain_id, token, time, block_number) do update set
       price_usd = excluded.price_usd, pool_size = excluded.pool_size,
       quote = excluded.quote, price_in_quote = excluded.price_in_quote, pool_address = excluded.pool_address`,
    [
      chainId,
      points.map((p) => p.token),
      points.map((p) => p.blockNumber.toString()),
      points.map((p) => p.time.toISOString()),
      points.map((p) => p.price.priceUsd),
      points.map((p) => p.price.poolSize),
      points.map((p) => p.price.quote),
      points.map((p) => p.price.priceInQuote),
      points.map((p) => p.price.pool?.address ?? null),
    ],
  );
}

/**
 * Writes current prices (clearing their `dirty` flag) and deletes the rows of `removed` tokens
 * (no route any more).
 */
export async function upsertTokenPrices(
  tx: Queryable,
  chainId: number,
  current: readonly PricePoint[],
  removed: readonly string[],
): Promise<void> {
  if (removed.length > 0) {
    await tx.query('delete from token_prices where chain_id = $1 and token = any($2::text[])', [
      chainId,
      removed,
    ]);
  }
  if (current.length === 0) return;
  await tx.query(
    `insert into token_prices
       (chain_id, token, price_usd, pool_size, low_liquidity, pool_address, pool_type, pool_tokens,
        quote, price_in_quote, quote_liquidity, route, updated_block, updated_at, dirty)
     select $1, u.token, u.price_usd, u.pool_size, u.low_liquidity, u.pool_address, u.pool_type,
            case when u.pool_address is null then null else array[u.t0, u.t1] end,
            u.quote, u.price_in_quote, u.quote_liquidity,
            case when u.route = '' then '{}'::text[] else string_to_array(u.route, ',') end,
            u.updated_block, u.updated_at, false
       from unnest($2::text[], $3::float8[], $4::float8[], $5::bool[], $6::text[], $7::text[], $8::text[],
                   $9::text[], $10::text[], $11::float8[], $12::float8[], $13::text[], $14::bigint[],
                   $15::timestamptz[])
         as u(token, price_usd, pool_size, low_liquidity, pool_address, pool_type, t0, t1, quote,
              price_in_quote, quote_liquidity, route, updated_block, updated_at)
     on conflict (chain_id, token) do update set
       price_usd = excluded.price_usd, pool_size = excluded.pool_size,
       low_liquidity = excluded.low_liquidity, pool_address = excluded.pool_address,
       pool_type = excluded.pool_type, pool_tokens = excluded.pool_tokens, quote = excluded.quote,
       price_in_quote = excluded.price_in_quote, quote_liquidity = excluded.quote_liquidity,
       route = excluded.route, updated_block = excluded.updated_block,
       updated_at = excluded.updated_at, dirty = false`,
    [
      chainId,
      current.map((c) => c.token),
      current.map((c) => c.price.priceUsd),
      current.map((c) => c.price.poolSize),
      current.map((c) => c.price.lowLiquidity),
      current.map((c) => c.price.pool?.address ?? null),
      current.map((c) => c.price.pool?.type ?? null),
      current.map((c) => c.price.pool?.tokens[0] ?? null),
      current.map((c) => c.price.pool?.tokens[1] ?? null),
      current.map((c) => c.price.quote),
      current.map((c) => c.price.priceInQuote),
      current.map((c) => c.price.quoteLiquidity),
      current.map((c) => c.price.route.join(',')),
      current.map((c) => c.blockNumber.toString()),
      current.map((c) => c.time.toISOString()),
    ],
  );
}

/**
 * Re-prices every token routed through the wrapped native after the wrapped native moved: price =
 * price in wrapped × wrapped's USD, pool size = the weaker of the token's hop and the wrapped
 * native's own route, the minimum-liquidity rule re-applied. `wrapped` null: the wrapped native
 * lost its USD route, so those tokens lose theirs too.
 */
export async function propagateWrappedPrice(
  tx: Queryable,
  chainId: number,
  wrappedNative: string,
  wrapped: PricePoint | null,
  thresholds: LiquidityThresholds,
): Promise<void> {
  const usd = wrapped?.price.pool ? wrapped.price.priceInQuote : null;
  const size = wrapped?.price.poolSize ?? null;
  await tx.query(
    `update token_prices set
       pool_size = least(quote_liquidity * $3::float8, $4::float8),
       price_usd = case when least(quote_liquidity * $3::float8, $4::float8) >= $5::float8
                        then price_in_quote * $3::float8 end,
       low_liquidity = coalesce(least(quote_liquidity * $3::float8, $4::float8) < $6::float8, true),
       updated_block = greatest(updated_block, $7::bigint),
       updated_at = greatest(updated_at, $8::timestamptz)
     where chain_id = $1 and quote = $2 and token <> $2 and token <> 'native'`,
    [
      chainId,
      wrappedNative,
      usd,
      size,
      thresholds.minLiquidityUsd,
      thresholds.lowLiquidityUsd,
      (wrapped?.blockNumber ?? 0n).toString(),
      (wrapped?.time ?? new Date(0)).toISOString(),
    ],
  );
}
