import { describe, expect, it } from 'vitest';
import { ratioToNumber } from './ratio.js';
import { v3Price, v3VirtualReserve } from './v3-price.js';

const Q96 = 2n ** 96n;

describe('v3Price', () => {
  it('sqrtPriceX96 = 2^96 is raw price 1; decimals scale it', () => {
    // raw 1 token1-unit per token0-unit; WETH(18)/USDC(6): 1 * 10^18 / 10^6 = 10^12 USDC per WETH.
    const pool = { sqrtPriceX96: Q96, decimals0: 18, decimals1: 6 };
    expect(ratioToNumber(v3Price(pool, 0)!)).toBe(1e12);
    expect(ratioToNumber(v3Price(pool, 1)!)).toBe(1e-12);
  });

  it('WETH (18, token0) / USDC (6, token1) at sqrtPriceX96 = 2^81', () => {
    // sqrt = 2^81 / 2^96 = 2^-15 -> raw price 2^-30 USDC-units per wei.
    // whole: 2^-30 * 10^18 / 10^6 = 10^12 / 2^30 = 5^12 / 2^18 = 244140625 / 262144
    //      = 931.322574615478515625 USDC per WETH (exact in binary).
    const pool = { sqrtPriceX96: 2n ** 81n, decimals0: 18, decimals1: 6 };
    expect(ratioToNumber(v3Price(pool, 0)!)).toBe(244140625 / 262144);
    // and 262144 / 244140625 = 0.001073741824 WETH per USDC
    expect(ratioToNumber(v3Price(pool, 1)!)).toBe(0.001073741824);
  });

  it('reversed order: USDC (6, token0) / WETH (18, token1) at sqrtPriceX96 = 2^111', () => {
    // sqrt = 2^15 -> raw 2^30 wei per USDC-unit; whole USDC price = 2^30 * 10^6 / 10^18 = 0.001073741824 WETH,
    // WETH price = 10^12 / 2^30 = 931.322574615478515625 USDC: same market as above.
    const pool = { sqrtPriceX96: 2n ** 111n, decimals0: 6, decimals1: 18 };
    expect(ratioToNumber(v3Price(pool, 0)!)).toBe(0.001073741824);
    expect(ratioToNumber(v3Price(pool, 1)!)).toBe(244140625 / 262144);
  });

  it('WBTC (8, token0) / WETH (18, token1) at sqrtPriceX96 = 400000 * 2^96', () => {
    // raw = 400000^2 = 1.6e11 wei per sat; whole = 1.6e11 * 10^8 / 10^18 = 16 WETH per WBTC.
    const pool = { sqrtPriceX96: 400_000n * Q96, decimals0: 8, decimals1: 18 };
    expect(ratioToNumber(v3Price(pool, 0)!)).toBe(16);
    expect(ratioToNumber(v3Price(pool, 1)!)).toBe(0.0625);
  });

  it('uninitialized pool has no price', () => {
    expect(v3Price({ sqrtPriceX96: 0n, decimals0: 18, decimals1: 18 }, 0)).toBeNull();
  });
});

describe('v3VirtualReserve', () => {
  it('L at price 1 is L of each token', () => {
    const pool = { sqrtPriceX96: Q96, liquidity: 10n ** 18n };
    expect(ratioToNumber(v3VirtualReserve(pool, 0))).toBe(1e18);
    expect(ratioToNumber(v3VirtualReserve(pool, 1))).toBe(1e18);
  });

  it('L = 3,000,000 at sqrt price 2^15', () => {
    // token1 = L * 2^15 = 98,304,000,000; token0 = L / 2^15 = 91.552734375
    const pool = { sqrtPriceX96: 2n ** 111n, liquidity: 3_000_000n };
    expect(ratioToNumber(v3VirtualReserve(pool, 1))).toBe(98_304_000_000);
    expect(ratioToNumber(v3VirtualReserve(pool, 0))).toBe(91.552734375);
  });

  it('no liquidity or no price: zero', () => {
    expect(v3VirtualReserve({ sqrtPriceX96: Q96, liquidity: 0n }, 0).num).toBe(0n);
    expect(v3VirtualReserve({ sqrtPriceX96: 0n, liquidity: 5n }, 1).num).toBe(0n);
  });
});
