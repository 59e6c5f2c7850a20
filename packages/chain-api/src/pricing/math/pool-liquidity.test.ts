import { describe, expect, it } from 'vitest';
import { counterDepth, poolLiquidityUsd, poolPrice } from './pool-liquidity.js';
import type { PoolSnapshot } from './pool-snapshot.js';
import { ratio, ratioToNumber } from './ratio.js';

const E18 = 10n ** 18n;
const ONE = ratio(1n, 1n);

function v2(p: Partial<PoolSnapshot>): PoolSnapshot {
  return {
    address: '0xpair',
    type: 'uniswap_v2',
    token0: '0xa',
    token1: '0xb',
    decimals0: 18,
    decimals1: 18,
    reserve0: 0n,
    reserve1: 0n,
    sqrtPriceX96: 0n,
    liquidity: 0n,
    ...p,
  };
}

describe('pool liquidity', () => {
  it('v2 WETH/USDC: 10 WETH : 30,000 USDC is 60,000 USD deep', () => {
    // counter of WETH is USDC: 30,000 USDC * 1 USD * 2 = 60,000
    const pair = v2({ reserve0: 10n * E18, reserve1: 30_000n * 10n ** 6n, decimals1: 6 });
    expect(ratioToNumber(poolLiquidityUsd(pair, 0, ONE))).toBe(60_000);
    // seen from USDC the counter is WETH: 10 WETH * 3000 USD * 2 = 60,000 too
    expect(ratioToNumber(poolLiquidityUsd(pair, 1, ratio(3000n, 1n)))).toBe(60_000);
    expect(ratioToNumber(poolPrice(pair, 0)!)).toBe(3000);
  });

  it('v2 with 8 decimals reversed: USDT (6, token0) / WBTC (8, token1)', () => {
    // 120,000 USDT : 2 WBTC -> WBTC = 60,000; depth for WBTC = 2 * 120,000 = 240,000 USD
    const pair = v2({
      reserve0: 120_000n * 10n ** 6n,
      reserve1: 200_000_000n,
      decimals0: 6,
      decimals1: 8,
    });
    expect(ratioToNumber(poolPrice(pair, 1)!)).toBe(60_000);
    expect(ratioToNumber(poolLiquidityUsd(pair, 1, ONE))).toBe(240_000);
  });

  it('v2 1-wei manipulation pool has almost no depth', () => {
    // 1 wei SCAM : 0.001 USDC (1000 raw) -> price 1e15 USD, depth 2 * 0.001 = 0.002 USD
    const pair = v2({ reserve0: 1n, reserve1: 1_000n, decimals1: 6 });
    expect(ratioToNumber(poolPrice(pair, 0)!)).toBe(1e15);
    expect(ratioToNumber(poolLiquidityUsd(pair, 0, ONE))).toBe(0.002);
  });

  it('v3 depth is the virtual reserve capped by tokens actually held', () => {
    // price 1 (2^96), L = 1e18 -> virtual 1 whole token each side (18 dec). Pool holds 0.5 of token1.
    const pool = v2({
      type: 'uniswap_v3',
      sqrtPriceX96: 2n ** 96n,
      liquidity: E18,
      reserve0: 4n * E18,
      reserve1: E18 / 2n,
    });
    // seen from token0: counter token1 min(1, 0.5) = 0.5 -> 2 * 0.5 * 2 USD = 2 USD
    expect(ratioToNumber(counterDepth(pool, 0))).toBe(0.5);
    expect(ratioToNumber(poolLiquidityUsd(pool, 0, ratio(2n, 1n)))).toBe(2);
    // seen from token1: counter token0 min(1, 4) = 1 -> 2 * 1 * 3 USD = 6 USD
    expect(ratioToNumber(poolLiquidityUsd(pool, 1, ratio(3n, 1n)))).toBe(6);
  });

  it('v3 L = 1 at an extreme price claims no depth it does not hold', () => {
    // sqrtPriceX96 = 2^150 -> virtual token1 = 2^54 raw (1.8e16 = 18 billion USDC at 6 dec), but the
    // pool holds nothing of token1 -> depth 0.
    const pool = v2({
      type: 'uniswap_v3',
      sqrtPriceX96: 2n ** 150n,
      liquidity: 1n,
      decimals1: 6,
      reserve0: 1n,
      reserve1: 0n,
    });
    expect(ratioToNumber(poolLiquidityUsd(pool, 0, ONE))).toBe(0);
  });
});
