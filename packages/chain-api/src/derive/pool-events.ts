import { swapLeg } from './swap-legs.js';
import type { EventOf, TxScope } from './tx-scope.js';

type PoolEventKind =
  | 'v2_pair_created'
  | 'v3_pool_created'
  | 'v2_sync'
  | 'v3_initialize'
  | 'v3_liquidity';

/** Pool creations (of the configured factories) and pool state changes, for the writer to apply. */
export function poolEvent(s: TxScope, ev: EventOf<PoolEventKind>): void {
  const { out, ctx, blockNumber, time } = s;
  switch (ev.kind) {
    case 'v2_pair_created':
      if (ctx.v2Factories.has(ev.address)) {
        out.poolEvents.push({
          kind: 'created',
          dex: 'uniswap_v2',
          factory: ev.address,
          pool: ev.pair,
          token0: ev.token0,
          token1: ev.token1,
          fee: null,
          tickSpacing: null,
          block: blockNumber,
        });
      }
      break;
    case 'v3_pool_created':
      if (ctx.v3Factories.has(ev.address)) {
        out.poolEvents.push({
          kind: 'created',
          dex: 'uniswap_v3',
          factory: ev.address,
          pool: ev.pool,
          token0: ev.token0,
          token1: ev.token1,
          fee: ev.fee,
          tickSpacing: ev.tickSpacing,
          block: blockNumber,
        });
      }
      break;
    case 'v2_sync':
      out.poolEvents.push({
        kind: 'sync',
        pool: ev.address,
        reserve0: ev.reserve0,
        reserve1: ev.reserve1,
        block: blockNumber,
        time,
      });
      break;
    case 'v3_initialize':
      out.poolEvents.push({
        kind: 'v3_state',
        pool: ev.address,
        sqrtPriceX96: ev.sqrtPriceX96,
        tick: ev.tick,
        liquidity: null,
        block: blockNumber,
        time,
      });
      break;
    case 'v3_liquidity':
      out.poolEvents.push({
        kind: 'v3_liquidity',
        pool: ev.address,
        tickLower: ev.tickLower,
        tickUpper: ev.tickUpper,
        delta: ev.delta,
        block: blockNumber,
        time,
      });
      break;
  }
}

/** A v2 or v3 Swap: kept for the transaction's swap row; a v3 Swap also moves the pool's state. */
export function poolSwap(s: TxScope, ev: EventOf<'v2_swap' | 'v3_swap'>, logIndex: number): void {
  recordSwap(s, ev, logIndex);
  if (ev.kind === 'v3_swap') {
    s.out.poolEvents.push({
      kind: 'v3_state',
      pool: ev.address,
      sqrtPriceX96: ev.sqrtPriceX96,
      tick: ev.tick,
      liquidity: ev.liquidity,
      block: s.blockNumber,
      time: s.time,
    });
  }
}

function recordSwap(s: TxScope, ev: EventOf<'v2_swap' | 'v3_swap'>, logIndex: number): void {
  if (s.ctx.poolTokens) {
    const tokens = s.ctx.poolTokens(ev.address);
    if (!tokens) return; // a Swap-shaped event of something that is not a pool
    s.legs.push(swapLeg(ev, logIndex, tokens));
  }
  s.swapLogs.push({
    logIndex,
    pool: ev.address,
    dex: ev.kind === 'v2_swap' ? 'uniswap_v2' : 'uniswap_v3',
  });
}
