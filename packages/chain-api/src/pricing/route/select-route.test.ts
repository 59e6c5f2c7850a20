import { describe, expect, it } from 'vitest';
import type { PoolSnapshot } from '../math/pool-snapshot.js';
import { ratioToNumber } from '../math/ratio.js';
import { anchorsOf } from './anchors.js';
import { bestRoute, priceToken } from './select-route.js';

const E18 = 10n ** 18n;
const E6 = 10n ** 6n;
const USDC = '0x00000000000000000000000000000000000000a1'; // 6 decimals
const DAI = '0x00000000000000000000000000000000000000a2'; // 18 decimals
const WETH = '0x00000000000000000000000000000000000000b1';
const UNI = '0x00000000000000000000000000000000000000c1';
const SCAM = '0x00000000000000000000000000000000000000c2';
const LONELY = '0x00000000000000000000000000000000000000c3';
const OTHER = '0x00000000000000000000000000000000000000c4';

const anchors = anchorsOf({ stablecoins: [USDC, DAI], wrappedNative: WETH });
const thresholds = { minLiquidityUsd: 1_000, lowLiquidityUsd: 10_000 };
const decimals: Record<string, number> = { [USDC]: 6 };

/** A v2 pair; token order is by address like the factory does it. */
function pair(address: string, a: string, ra: bigint, b: string, rb: bigint): PoolSnapshot {
  const [t0, r0, t1, r1] = a < b ? [a, ra, b, rb] : [b, rb, a, ra];
  return {
    address,
    type: 'uniswap_v2',
    token0: t0,
    token1: t1,
    decimals0: decimals[t0] ?? 18,
    decimals1: decimals[t1] ?? 18,
    reserve0: r0,
    reserve1: r1,
    sqrtPriceX96: 0n,
    liquidity: 0n,
  };
}

// WETH/USDC: 100 WETH : 300,000 USDC -> 3,000 USD, liquidity 2 * 300,000 = 600,000 USD.
const wethUsdc = pair('0xp1', WETH, 100n * E18, USDC, 300_000n * E6);
// WETH/DAI: 10 WETH : 31,000 DAI -> 3,100 USD, liquidity 62,000 USD (shallower, not chosen).
const wethDai = pair('0xp2', WETH, 10n * E18, DAI, 31_000n * E18);
// UNI/WETH: 10,000 UNI : 20 WETH -> 0.002 WETH = 6 USD; liquidity min(2 * 20 * 3000, 600,000) = 120,000.
const uniWeth = pair('0xp3', UNI, 10_000n * E18, WETH, 20n * E18);
// UNI/USDC: 1,000 UNI : 5,500 USDC -> 5.5 USD; liquidity 11,000 (shallower than via WETH).
const uniUsdc = pair('0xp4', UNI, 1_000n * E18, USDC, 5_500n * E6);
// SCAM/USDC: 1 wei : 0.001 USDC -> 0.001 / 1e-18 = 1e15 USD; liquidity 2 * 0.001 = 0.002 USD.
const scamUsdc = pair('0xp5', SCAM, 1n, USDC, 1_000n);
// LONELY/OTHER: no quote token on either side.
const lonely = pair('0xp6', LONELY, E18, OTHER, E18);

const pools = [wethUsdc, wethDai, uniWeth, uniUsdc, scamUsdc, lonely];

describe('route selection', () => {
  const weth = bestRoute(WETH, pools, anchors, null)!;

  it('prices the wrapped native through its deepest stablecoin pool', () => {
    expect(weth.pool.address).toBe('0xp1');
    expect(ratioToNumber(weth.priceUsd)).toBe(3000);
    expect(ratioToNumber(weth.liquidityUsd)).toBe(600_000);
    const p = priceToken(WETH, pools, anchors, null, thresholds)!;
    expect(p).toMatchObject({
      priceUsd: 3000,
      poolSize: 600_000,
      lowLiquidity: false,
      quote: USDC,
    });
    expect(p.route).toEqual(['0xp1']);
  });

  it('takes the deepest route even when it has two hops; liquidity is the weakest hop', () => {
    const p = priceToken(UNI, pools, anchors, weth, thresholds)!;
    // 0.002 WETH * 3000 USD = 6 USD; hops 120,000 and 600,000 -> 120,000
    expect(p.priceUsd).toBe(6);
    expect(p.poolSize).toBe(120_000);
    expect(p.route).toEqual(['0xp3', '0xp1']);
    expect(p.quote).toBe(WETH);
    expect(p.priceInQuote).toBe(0.002);
    // quote-side liquidity of the first hop: 2 * 20 WETH = 40 WETH
    expect(p.quoteLiquidity).toBe(40);
    expect(p.pool).toEqual({ address: '0xp3', type: 'uniswap_v2', tokens: [WETH, UNI] }); // WETH 0x..b1 sorts first
  });

  it('the weakest hop caps a two-hop route', () => {
    // a thin WETH/USDC pool (1 WETH : 3,000 USDC, 6,000 USD) under a deep UNI/WETH pool
    const thinWeth = pair('0xp7', WETH, E18, USDC, 3_000n * E6);
    const w = bestRoute(WETH, [thinWeth], anchors, null)!;
    const p = priceToken(UNI, [uniWeth], anchors, w, thresholds)!;
    expect(p.poolSize).toBe(6_000); // min(120,000, 6,000)
    expect(p.lowLiquidity).toBe(true);
    expect(p.priceUsd).toBe(6); // still above the 1,000 USD minimum
  });

  it('without the wrapped native price, only direct stablecoin pools count', () => {
    const p = priceToken(UNI, pools, anchors, null, thresholds)!;
    expect(p.priceUsd).toBe(5.5);
    expect(p.poolSize).toBe(11_000);
  });

  it('a 1-wei manipulation pool leaves the token unpriced, pool reported', () => {
    const p = priceToken(SCAM, pools, anchors, weth, thresholds)!;
    expect(p.priceUsd).toBeNull();
    expect(p.poolSize).toBe(0.002);
    expect(p.lowLiquidity).toBe(true);
    // a wallet holding 1,000,000 SCAM is worth nothing rather than 1e21 USD
    const valueUsd = p.priceUsd === null ? null : p.priceUsd * 1_000_000;
    expect(valueUsd).toBeNull();
  });

  it('the minimum liquidity is configurable', () => {
    const p = priceToken(SCAM, pools, anchors, weth, {
      minLiquidityUsd: 0.001,
      lowLiquidityUsd: 1,
    })!;
    expect(p.priceUsd).toBe(1e15);
  });

  it('stablecoins are 1 USD whatever their pool says; pool_size from the deepest pool', () => {
    const usdc = priceToken(USDC, pools, anchors, weth, thresholds)!;
    // deepest USDC pool with a quote token on the other side: WETH/USDC, counter 100 WETH * 3000 * 2
    // = 600,000 capped by WETH's own route (600,000)
    expect(usdc).toMatchObject({ priceUsd: 1, poolSize: 600_000, lowLiquidity: false });
    const dai = priceToken(DAI, [], anchors, weth, thresholds)!;
    expect(dai).toMatchObject({ priceUsd: 1, poolSize: null, pool: null });
  });

  it('tokens without a pool against a quote token have no price row', () => {
    expect(priceToken(LONELY, pools, anchors, weth, thresholds)).toBeNull();
    expect(priceToken(OTHER, pools, anchors, weth, thresholds)).toBeNull();
  });

  it('ties are broken by pool address, so the choice is deterministic', () => {
    const a = pair('0xpa', UNI, 1_000n * E18, USDC, 5_000n * E6);
    const b = pair('0xpb', UNI, 1_000n * E18, USDC, 5_000n * E6);
    expect(bestRoute(UNI, [b, a], anchors, null)!.pool.address).toBe('0xpa');
    expect(bestRoute(UNI, [a, b], anchors, null)!.pool.address).toBe('0xpa');
  });

  it('v3 pools compete with v2 pools on USD liquidity', () => {
    // USDC (0x..a1, 6 dec) sorts before UNI (0x..c1, 18 dec): USDC is token0.
    // sqrtPriceX96 = 2^116 -> sqrt 2^20 -> raw price 2^40 UNI-wei per USDC-unit:
    // whole USDC price = 2^40 * 10^6 / 10^18 UNI = 1.099511627776 UNI -> UNI = 1 / 1.0995... USD
    // L = 10^14 -> virtual USDC = L / 2^20 raw = 95,367,431.640625 raw = 95.367... USDC; the pool holds
    // 50 USDC, so depth = 50 -> liquidity 100 USD (under UNI/WETH's 120,000).
    const v3: PoolSnapshot = {
      address: '0xp9',
      type: 'uniswap_v3',
      token0: USDC,
      token1: UNI,
      decimals0: 6,
      decimals1: 18,
      reserve0: 50n * E6,
      reserve1: 10n ** 20n,
      sqrtPriceX96: 2n ** 116n,
      liquidity: 10n ** 14n,
    };
    const only = priceToken(UNI, [v3], anchors, weth, thresholds)!;
    expect(only.poolSize).toBe(100);
    expect(only.priceUsd).toBeNull();
    expect(ratioToNumber(bestRoute(UNI, [v3], anchors, weth)!.priceUsd)).toBe(1 / 1.099511627776);
    expect(priceToken(UNI, [...pools, v3], anchors, weth, thresholds)!.pool!.address).toBe('0xp3');
  });
});
