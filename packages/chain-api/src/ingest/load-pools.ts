import type { Queryable } from '@sluice/db';
import type { PoolState } from '../derive/index.js';

const big = (v: string | null) => (v === null ? null : BigInt(v));

/** Loads the tracked pools of a chain with their latest state (the in-memory pool cache). */
export async function loadPools(db: Queryable, chainId: number): Promise<Map<string, PoolState>> {
  const { rows } = await db.query<{
    address: string;
    dex: 'uniswap_v2' | 'uniswap_v3';
    factory: string;
    token0: string;
    token1: string;
    fee: number | null;
    tick_spacing: number | null;
    created_block: string;
    reserve0: string | null;
    reserve1: string | null;
    sqrt_price_x96: string | null;
    tick: number | null;
    liquidity: string | null;
    updated_block: string | null;
    updated_time: Date | string | null;
  }>('select * from pools where chain_id = $1', [chainId]);
  return new Map(
    rows.map((r) => [
      r.address,
      {
        address: r.address,
        dex: r.dex,
        factory: r.factory,
        token0: r.token0,
        token1: r.token1,
        fee: r.fee,
        tickSpacing: r.tick_spacing,
        createdBlock: BigInt(r.created_block),
        reserve0: big(r.reserve0),
        reserve1: big(r.reserve1),
        sqrtPriceX96: big(r.sqrt_price_x96),
        tick: r.tick,
        liquidity: big(r.liquidity),
        updatedBlock: big(r.updated_block),
        updatedTime: r.updated_time === null ? null : new Date(r.updated_time),
      },
    ]),
  );
}
