import { describe, expect, it } from 'vitest';
import {
  compareRatio,
  divRatio,
  minRatio,
  mulRatio,
  pow10,
  ratio,
  ratioToNumber,
} from './ratio.js';

describe('ratio', () => {
  it('converts simple fractions to the nearest double', () => {
    expect(ratioToNumber(ratio(1n, 3n))).toBe(1 / 3);
    expect(ratioToNumber(ratio(3000n, 1n))).toBe(3000);
    expect(ratioToNumber(ratio(0n, 7n))).toBe(0);
    expect(ratioToNumber(ratio(-1n, 4n))).toBe(-0.25);
    expect(ratioToNumber(ratio(1n, -4n))).toBe(-0.25);
  });

  it('keeps precision when numerator and denominator are far beyond 2^53', () => {
    // (2^300 + 1) / 2^300 is 1 + 2^-300, which rounds to exactly 1 in double.
    expect(ratioToNumber(ratio((1n << 300n) + 1n, 1n << 300n))).toBe(1);
    // 10^40 / (3 * 10^36) = 3333.333...
    expect(ratioToNumber(ratio(10n ** 40n, 3n * 10n ** 36n))).toBe(10000 / 3);
    // 2^1100 / 2^1090 = 1024, though both sides overflow a double on their own.
    expect(ratioToNumber(ratio(1n << 1100n, 1n << 1090n))).toBe(1024);
    // 1 / 10^320 is a subnormal double, not 0.
    const tiny = ratioToNumber(ratio(1n, 10n ** 320n));
    expect(Math.abs(tiny / 1e-320 - 1)).toBeLessThan(1e-3);
    expect(ratioToNumber(ratio(1n << 1100n, 1n))).toBe(Number.POSITIVE_INFINITY);
  });

  it('multiplies, divides, compares exactly', () => {
    const a = ratio(2n, 3n);
    const b = ratio(3n, 4n);
    expect(ratioToNumber(mulRatio(a, b))).toBe(0.5);
    expect(ratioToNumber(divRatio(a, b))).toBe(8 / 9);
    expect(compareRatio(a, b)).toBe(-1);
    expect(compareRatio(b, a)).toBe(1);
    expect(compareRatio(ratio(4n, 6n), a)).toBe(0);
    expect(minRatio(a, b)).toBe(a);
    expect(() => divRatio(a, ratio(0n, 1n))).toThrow(RangeError);
    expect(() => ratio(1n, 0n)).toThrow(RangeError);
  });

  it('pow10 rejects impossible decimals', () => {
    expect(pow10(0)).toBe(1n);
    expect(pow10(18)).toBe(1_000_000_000_000_000_000n);
    expect(() => pow10(-1)).toThrow(RangeError);
    expect(() => pow10(1.5)).toThrow(RangeError);
    expect(() => pow10(256)).toThrow(RangeError);
  });
});
