import { describe, expect, it } from 'vitest';
import {
  amountsForLiquidity,
  inRange,
  MAX_TICK,
  MIN_TICK,
  sqrtRatioAtTick,
  uncollectedFees,
} from './uniswap-v3-math.js';

const Q96 = 2n ** 96n;
const Q128 = 2n ** 128n;

describe('sqrtRatioAtTick', () => {
  it("matches TickMath's published bounds and the identity at tick 0", () => {
    expect(sqrtRatioAtTick(0)).toBe(Q96);
    expect(sqrtRatioAtTick(MIN_TICK)).toBe(4295128739n);
    expect(sqrtRatioAtTick(MAX_TICK)).toBe(1461446703485210103287273052203988822378723970342n);
  });

  it('follows sqrt(1.0001^tick) for every bit of the tick', () => {
    for (let bit = 0; bit < 20; bit++) {
      for (const tick of [2 ** bit, -(2 ** bit)]) {
        if (tick > MAX_TICK) continue;
        const expected = Math.sqrt(1.0001 ** tick) * 2 ** 96;
        const got = Number(sqrtRatioAtTick(tick));
        expect(Math.abs(got / expected - 1), `tick ${tick}`).toBeLessThan(1e-9);
      }
    }
  });

  it('rejects ticks out of range', () => {
    expect(() => sqrtRatioAtTick(MAX_TICK + 1)).toThrow(RangeError);
    expect(() => sqrtRatioAtTick(MIN_TICK - 1)).toThrow(RangeError);
    expect(() => sqrtRatioAtTick(1.5)).toThrow(RangeError);
  });
});

describe('amountsForLiquidity', () => {
  const L = 10n ** 18n;
  it('below the range: all token0; above: all token1; inside: both', () => {
    const below = amountsForLiquidity(sqrtRatioAtTick(-120), -60, 60, L);
    expect(below[0]).toBeGreaterThan(0n);
    expect(below[1]).toBe(0n);
    const above = amountsForLiquidity(sqrtRatioAtTick(120), -60, 60, L);
    expect(above[0]).toBe(0n);
    expect(above[1]).toBeGreaterThan(0n);
    const [a0, a1] = amountsForLiquidity(Q96, -60, 60, L);
    // Symmetric range around price 1: equal amounts, L * (1 - 1/sqrt(1.0001^60)).
    expect(a0 === a1 || a0 - a1 === 1n || a1 - a0 === 1n).toBe(true);
    expect(Number(a0) / 1e18).toBeCloseTo(1 - 1 / Math.sqrt(1.0001 ** 60), 9);
  });

  it('rounds down like LiquidityAmounts (integer division at each step)', () => {
    const a = sqrtRatioAtTick(-60);
    const b = sqrtRatioAtTick(60);
    const [a0, a1] = amountsForLiquidity(Q96, -60, 60, 7n);
    expect(a0).toBe(((7n << 96n) * (b - Q96)) / b / Q96);
    expect(a1).toBe((7n * (Q96 - a)) / Q96);
  });
});

describe('uncollectedFees', () => {
  const position = {
    tickLower: -60,
    tickUpper: 60,
    liquidity: 2n * 10n ** 18n,
    feeGrowthInside0LastX128: 0n,
    feeGrowthInside1LastX128: 0n,
    tokensOwed0: 5n,
    tokensOwed1: 0n,
  };
  const zero = { feeGrowthOutside0X128: 0n, feeGrowthOutside1X128: 0n };

  it('in range: global minus both outsides, times liquidity, plus tokens owed', () => {
    const fees = uncollectedFees(position, {
      tick: 0,
      feeGrowthGlobal0X128: 3n * Q128,
      feeGrowthGlobal1X128: Q128 / 2n,
      lower: { feeGrowthOutside0X128: Q128, feeGrowthOutside1X128: 0n },
      upper: zero,
    });
    expect(fees).toEqual([2n * 2n * 10n ** 18n + 5n, 10n ** 18n]);
  });

  it('wraps modulo 2^256 as the contracts do (outside values above the global)', () => {
    const fees = uncollectedFees(
      { ...position, feeGrowthInside0LastX128: (1n << 256n) - Q128, tokensOwed0: 0n },
      {
        tick: 0,
        feeGrowthGlobal0X128: Q128,
        feeGrowthGlobal1X128: 0n,
        lower: zero,
        upper: zero,
      },
    );
    // inside grew from -1 to +1 (mod 2^256): 2 units per liquidity.
    expect(fees[0]).toBe(4n * 10n ** 18n);
  });

  it('out of range uses the outside values only', () => {
    const below = uncollectedFees(
      { ...position, tokensOwed0: 0n },
      {
        tick: -100,
        feeGrowthGlobal0X128: 100n * Q128,
        feeGrowthGlobal1X128: 0n,
        lower: { feeGrowthOutside0X128: 3n * Q128, feeGrowthOutside1X128: 0n },
        upper: { feeGrowthOutside0X128: Q128, feeGrowthOutside1X128: 0n },
      },
    );
    expect(below[0]).toBe(2n * 2n * 10n ** 18n);
  });

  it('in range is tickLower <= tick < tickUpper', () => {
    expect(inRange(-60, -60, 60)).toBe(true);
    expect(inRange(60, -60, 60)).toBe(false);
    expect(inRange(-61, -60, 60)).toBe(false);
  });
});
