import { describe, expect, it } from 'vitest';
import { blockTimeIso, usdValue, utcIso } from './format.js';

describe('usdValue', () => {
  it('scales by the token decimals exactly before the float multiply', () => {
    expect(usdValue('1500000', 6, 1)).toBe(1.5);
    expect(usdValue('2500000000000000000', 18, 2)).toBe(5);
    expect(usdValue('12345678', 8, 60_000)).toBeCloseTo(7_407.4068, 4);
    expect(usdValue('7', 0, 3)).toBe(21);
    // Beyond 2^53 wei the whole part stays exact.
    expect(usdValue('123456789012345678901234567', 18, 1)).toBeCloseTo(123_456_789.01234567, 6);
    // The second call for the same decimals uses the memoized scale: same answer.
    expect(usdValue('1500000', 6, 1)).toBe(1.5);
  });

  it('keeps the sign of negative amounts', () => {
    expect(usdValue('-1500000', 6, 2)).toBe(-3);
  });
});

describe('timestamps', () => {
  it('formats block times as the peer does', () => {
    expect(blockTimeIso(1_700_000_000)).toBe('2023-11-14T22:13:20+00:00');
    expect(utcIso(1_700_000_000)).toBe('2023-11-14T22:13:20Z');
  });
});
