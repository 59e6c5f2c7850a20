import type { PoolEvent } from './derived-batch.js';

/** Latest known state of a tracked pool (the `pools` row). */
export interface PoolState {
  address: string;
  dex: 'uniswap_v2' | 'uniswap_v3';
  factory: string;
  token0: string;
  token1: string;
  fee: number | null;
  tickSpacing: number | null;
  createdBlock: bigint;
  reserve0: bigint | null;
  reserve1: bigint | null;
  sqrtPriceX96: bigint | null;
  tick: number | null;
  liquidity: bigint | null;
  updatedBlock: bigint | null;
  updatedTime: Date | null;
}

/** A `pool_states` row: a pool's state at the end of a block where it changed. */
export interface PoolStateRow {
  pool: string;
  block: bigint;
  time: Date;
  reserve0: bigint | null;
  reserve1: bigint | null;
  sqrtPriceX96: bigint | null;
  tick: number | null;
  liquidity: bigint | null;
}

export interface PoolChanges {
  created: PoolState[];
  /** Final state of every pool touched (created or changed) in the batch. */
  changed: PoolState[];
  states: PoolStateRow[];
}

/**
 * Applies a batch's pool events, in order, on top of the known pools, without mutating them:
 * returns the new/changed pools and per-block states; the caller commits them and then merges
 * `changed` into its cache. Events of untracked contracts (no PairCreated/PoolCreated from a
 * configured factory) are ignored.
 *
 * @example
 * const changes = applyPoolEvents(batch.poolEvents, knownPools);
 */
export function applyPoolEvents(
  events: readonly PoolEvent[],
  known: ReadonlyMap<string, PoolState>,
): PoolChanges {
  const overlay = new Map<string, PoolState>();
  const created: PoolState[] = [];
  const perBlock = new Map<string, PoolStateRow>();
  const get = (pool: string): PoolState | undefined => {
    const o = overlay.get(pool);
    if (o) return o;
    const k = known.get(pool);
    if (!k) return undefined;
    const copy = { ...k };
    overlay.set(pool, copy);
    return copy;
  };
  for (const e of events) {
    if (e.kind === 'created') {
      if (get(e.pool)) continue;
      const p: PoolState = {
        address: e.pool,
        dex: e.dex,
        factory: e.factory,
        token0: e.token0,
        token1: e.token1,
        fee: e.fee,
        tickSpacing: e.tickSpacing,
        createdBlock: e.block,
        reserve0: null,
        reserve1: null,
        sqrtPriceX96: null,
        tick: null,
        liquidity: e.dex === 'uniswap_v3' ? 0n : null,
        updatedBlock: null,
        updatedTime: null,
      };
      overlay.set(e.pool, p);
      created.push(p);
      continue;
    }
    const p = get(e.pool);
    if (!p) continue;
    if (e.kind === 'sync') {
      if (p.dex !== 'uniswap_v2') continue;
      p.reserve0 = e.reserve0;
      p.reserve1 = e.reserve1;
    } else if (e.kind === 'v3_state') {
      if (p.dex !== 'uniswap_v3') continue;
      p.sqrtPriceX96 = e.sqrtPriceX96;
      p.tick = e.tick;
      if (e.liquidity !== null) p.liquidity = e.liquidity;
    } else {
      if (p.dex !== 'uniswap_v3') continue;
      // Only positions around the current price change the active liquidity.
      if (p.tick !== null && e.tickLower <= p.tick && p.tick < e.tickUpper) {
        const next = (p.liquidity ?? 0n) + e.delta;
        p.liquidity = next < 0n ? 0n : next;
      }
    }
    p.updatedBlock = e.block;
    p.updatedTime = e.time;
    perBlock.set(`${p.address}|${e.block}`, {
      pool: p.address,
      block: e.block,
      time: e.time,
      reserve0: p.reserve0,
      reserve1: p.reserve1,
      sqrtPriceX96: p.sqrtPriceX96,
      tick: p.tick,
      liquidity: p.liquidity,
    });
  }
  return { created, changed: [...overlay.values()], states: [...perBlock.values()] };
}
