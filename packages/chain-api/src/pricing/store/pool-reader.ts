import type { Queryable } from '@sluice/db';
import type { PoolType } from '../math/pool-snapshot.js';

/** A pool as the indexer registered it (created by one of the chain's configured factories). */
export interface PoolInfo {
  address: string;
  type: PoolType;
  token0: string;
  token1: string;
}

/** Pool state at the end of one block, as the indexer stored it in `pool_states`. */
export interface PoolState {
  pool: string;
  blockNumber: bigint;
  blockTime: Date;
  /** v2 reserves (null for v3 rows). */
  reserve0: bigint | null;
  reserve1: bigint | null;
  /** v3 price and active liquidity (null for v2 rows). */
  sqrtPriceX96: bigint | null;
  liquidity: bigint | null;
}

interface StateRow {
  pool: string;
  block_number: string;
  block_time: Date | string;
  reserve0: string | null;
  reserve1: string | null;
  sqrt_price_x96: string | null;
  liquidity: string | null;
}

function big(v: string | null): bigint | null {
  if (v === null) return null;
  // numeric may come back as "123" or "123.000" depending on how it was written.
  const dot = v.indexOf('.');
  return BigInt(dot === -1 ? v : v.slice(0, dot));
}

function toState(r: StateRow): PoolState {
  return {
    pool: r.pool,
    blockNumber: BigInt(r.block_number),
    blockTime: r.block_time instanceof Date ? r.block_time : new Date(r.block_time),
    reserve0: big(r.reserve0),
    reserve1: big(r.reserve1),
    sqrtPriceX96: big(r.sqrt_price_x96),
    liquidity: big(r.liquidity),
  };
}

const STATE_COLUMNS =
  's.pool, s.block_number, s.block_time, s.reserve0::text as reserve0, s.reserve1::text as reserve1, s.sqrt_price_x96::text as sqrt_price_x96, s.liquidity::text as liquidity';

/**
 * Every pool state written in blocks (from, to], oldest first, with the pool's tokens.
 *
 * @example
 * const rows = await loadChangedPools(db, 1, 100n, 200n);
 */
export async function loadChangedPools(
  db: Queryable,
  chainId: number,
  from: bigint,
  to: bigint,
): Promise<(PoolState & PoolInfo)[]> {
  const { rows } = await db.query<StateRow & { dex: PoolType; token0: string; token1: string }>(
    `select ${STATE_COLUMNS}, p.dex, p.token0, p.token1
       from pool_states s join pools p on p.chain_id = s.chain_id and p.address = s.pool
      where s.chain_id = $1 and s.block_number > $2::bigint and s.block_number <= $3::bigint
      order by s.block_number, s.pool`,
    [chainId, from.toString(), to.toString()],
  );
  return rows.map((r) => ({
    ...toState(r),
    address: r.pool,
    type: r.dex,
    token0: r.token0,
    token1: r.token1,
  }));
}

/**
 * Pools pairing one of `tokens` with one of `quotes` (the only pools a price route can use).
 *
 * @example
 * await loadRoutePools(db, 1, [uni], [usdc, weth]);
 */
export async function loadRoutePools(
  db: Queryable,
  chainId: number,
  tokens: readonly string[],
  quotes: readonly string[],
): Promise<PoolInfo[]> {
  if (tokens.length === 0 || quotes.length === 0) return [];
  const { rows } = await db.query<{
    address: string;
    dex: PoolType;
    token0: string;
    token1: string;
  }>(
    `select address, dex, token0, token1 from pools
      where chain_id = $1
        and ((token0 = any($2::text[]) and token1 = any($3::text[]))
          or (token1 = any($2::text[]) and token0 = any($3::text[])))`,
    [chainId, tokens, quotes],
  );
  return rows.map((r) => ({ address: r.address, type: r.dex, token0: r.token0, token1: r.token1 }));
}

/**
 * The latest state of each pool at or before `block` (pools without any state are absent).
 *
 * @example
 * const states = await loadStatesAt(db, 1, ['0xpair'], 150n);
 */
export async function loadStatesAt(
  db: Queryable,
  chainId: number,
  pools: readonly string[],
  block: bigint,
): Promise<Map<string, PoolState>> {
  const out = new Map<string, PoolState>();
  if (pools.length === 0) return out;
  const { rows } = await db.query<StateRow>(
    `select ${STATE_COLUMNS}
       from unnest($2::text[]) as q(pool)
       cross join lateral (
         select * from pool_states s0
          where s0.chain_id = $1 and s0.pool = q.pool and s0.block_number <= $3::bigint
          order by s0.block_number desc limit 1
       ) s`,
    [chainId, pools, block.toString()],
  );
  for (const r of rows) out.set(r.pool, toState(r));
  return out;
}

/** Decimals of tokens; `pending` lists those whose metadata the indexer has not fetched yet. */
export interface TokenDecimals {
  decimals: Map<string, number>;
  pending: Set<string>;
}

/**
 * Decimals from the indexer's `tokens` table. A token without a row or still `pending` is
 * reported pending; a token whose `decimals()` failed has no decimals and cannot be priced.
 */
export async function loadDecimals(
  db: Queryable,
  chainId: number,
  tokens: readonly string[],
): Promise<TokenDecimals> {
  const decimals = new Map<string, number>();
  const pending = new Set(tokens);
  if (tokens.length === 0) return { decimals, pending };
  const { rows } = await db.query<{ address: string; decimals: number | null; status: string }>(
    'select address, decimals, status from tokens where chain_id = $1 and address = any($2::text[])',
    [chainId, tokens],
  );
  for (const r of rows) {
    if (r.status === 'pending' && r.decimals === null) continue;
    pending.delete(r.address);
    if (r.decimals !== null && r.decimals >= 0 && r.decimals <= 77)
      decimals.set(r.address, r.decimals);
  }
  return { decimals, pending };
}

/**
 * What pools hold of their tokens now (`erc20_balances` with wallet = pool), keyed `pool:token`.
 * Used to cap a v3 pool's virtual depth by the tokens really deposited.
 */
export async function loadHeldBalances(
  db: Queryable,
  chainId: number,
  pools: readonly string[],
): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  if (pools.length === 0) return out;
  const { rows } = await db.query<{ wallet: string; token: string; amount: string }>(
    `select wallet, token, amount::text as amount from erc20_balances
      where wallet = any($2::text[]) and chain_id = $1`,
    [chainId, pools],
  );
  for (const r of rows) out.set(`${r.wallet}:${r.token}`, big(r.amount) ?? 0n);
  return out;
}
