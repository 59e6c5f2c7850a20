import { describe, expect, it } from 'vitest';
import { ratioToNumber } from './ratio.js';
import { v2Price } from './v2-price.js';

const E18 = 10n ** 18n;

describe('v2Price', () => {
  it('WETH (18, token0) / USDC (6, token1)', () => {
    // 10 WETH : 30,000 USDC -> 30000 / 10 = 3000 USDC per WETH; 1/3000 WETH per USDC.
    const pair = {
      reserve0: 10n * E18,
      reserve1: 30_000n * 10n ** 6n,
      decimals0: 18,
      decimals1: 6,
    };
    expect(ratioToNumber(v2Price(pair, 0)!)).toBe(3000);
    expect(ratioToNumber(v2Price(pair, 1)!)).toBe(1 / 3000);
  });

  it('reversed order: USDC (6, token0) / WETH (18, token1) gives the same prices', () => {
    const pair = {
      reserve0: 30_000n * 10n ** 6n,
      reserve1: 10n * E18,
      decimals0: 6,
      decimals1: 18,
    };
    expect(ratioToNumber(v2Price(pair, 1)!)).toBe(3000);
    expect(ratioToNumber(v2Price(pair, 0)!)).toBe(1 / 3000);
  });

  it('WBTC (8) / USDT (6)', () => {
    // 2.5 WBTC = 250,000,000 raw; 150,000 USDT = 150,000,000,000 raw -> 150000 / 2.5 = 60,000.
    const pair = { reserve0: 250_000_000n, reserve1: 150_000_000_000n, decimals0: 8, decimals1: 6 };
    expect(ratioToNumber(v2Price(pair, 0)!)).toBe(60_000);
  });

  it('DAI (18, token0) / WBTC (8, token1), fractional reserves', () => {
    // 123,456.789 DAI = 123456789 * 10^15 raw; 2 WBTC = 200,000,000 raw
    // WBTC price = 123456.789 / 2 = 61728.3945 DAI; DAI price = 2 / 123456.789 = 0.0000162000...
    const pair = {
      reserve0: 123_456_789n * 10n ** 15n,
      reserve1: 200_000_000n,
      decimals0: 18,
      decimals1: 8,
    };
    expect(ratioToNumber(v2Price(pair, 1)!)).toBe(61728.3945);
    expect(ratioToNumber(v2Price(pair, 0)!)).toBe(2 / 123456.789);
  });

  it('1 wei against 1,000 USDC: an absurd but exact price', () => {
    // 1 raw unit of an 18-dec token = 1e-18 token; 1000 USDC / 1e-18 = 1e21 USDC per token.
    const pair = { reserve0: 1n, reserve1: 1_000n * 10n ** 6n, decimals0: 18, decimals1: 6 };
    expect(ratioToNumber(v2Price(pair, 0)!)).toBe(1e21);
  });

  it('no price without reserves', () => {
    expect(v2Price({ reserve0: 0n, reserve1: 5n, decimals0: 18, decimals1: 18 }, 0)).toBeNull();
    expect(v2Price({ reserve0: 5n, reserve1: 0n, decimals0: 18, decimals1: 18 }, 1)).toBeNull();
  });
});
