import { describe, expect, it } from 'vitest';
import { encodeSqrtPriceX96, fullRangeTicks, MAX_TICK, sqrtBigInt } from './v3-math.js';

describe('v3 math', () => {
  it('takes exact integer square roots', () => {
    expect(sqrtBigInt(0n)).toBe(0n);
    expect(sqrtBigInt(1n)).toBe(1n);
    expect(sqrtBigInt(15n)).toBe(3n);
    expect(sqrtBigInt(16n)).toBe(4n);
    expect(sqrtBigInt(10n ** 40n)).toBe(10n ** 20n);
    expect(sqrtBigInt(10n ** 40n - 1n)).toBe(10n ** 20n - 1n);
    expect(() => sqrtBigInt(-1n)).toThrow(RangeError);
  });

  it('encodes sqrtPriceX96 like the Uniswap SDK', () => {
    expect(encodeSqrtPriceX96(1n, 1n)).toBe(2n ** 96n);
    expect(encodeSqrtPriceX96(100n, 1n)).toBe(10n * 2n ** 96n);
    expect(encodeSqrtPriceX96(1n, 100n)).toBe(2n ** 96n / 10n);
    // 20 WETH (18 dec) per WBTC (8 dec): raw price 2e11, sqrt ≈ 447213.595...
    const p = encodeSqrtPriceX96(20n * 10n ** 18n, 10n ** 8n);
    expect(Number(p) / 2 ** 96).toBeCloseTo(447213.595, 2);
    expect(() => encodeSqrtPriceX96(0n, 1n)).toThrow(RangeError);
  });

  it('computes full-range ticks on the spacing grid', () => {
    expect(fullRangeTicks(60)).toEqual([-887220, 887220]);
    expect(fullRangeTicks(10)).toEqual([-887270, 887270]);
    expect(fullRangeTicks(200)[1]).toBeLessThanOrEqual(MAX_TICK);
  });
});
