import { describe, expect, it } from 'vitest';
import type { PricePoint } from '../price-point.js';
import type { TokenPrice } from '../route/select-route.js';
import { thinPoints } from './thin-points.js';

const price = { priceUsd: 1 } as TokenPrice;
const at = (token: string, block: number, minute: number): PricePoint => ({
  token,
  blockNumber: BigInt(block),
  time: new Date(minute * 60_000),
  price,
});
const rule = { cutoffMs: 60 * 60_000, finalizedBlock: 100n, bucketMs: 5 * 60_000 };

describe('thinPoints', () => {
  it('keeps the last point per token and 5-minute bucket among old, final points', () => {
    const points = [
      at('a', 1, 0),
      at('a', 2, 1),
      at('b', 2, 1),
      at('a', 3, 4.9),
      at('a', 4, 5),
      at('a', 5, 9),
    ];
    // bucket [0,5): a@3 wins; b alone; bucket [5,10): a@5 wins
    expect(thinPoints(points, rule).map((p) => `${p.token}${p.blockNumber}`)).toEqual([
      'b2',
      'a3',
      'a5',
    ]);
  });

  it('keeps every recent or unfinalized point', () => {
    const recent = [at('a', 1, 61), at('a', 2, 62)]; // after the cutoff
    expect(thinPoints(recent, rule)).toHaveLength(2);
    const unfinal = [at('a', 101, 1), at('a', 102, 2)]; // above the finalized block
    expect(thinPoints(unfinal, rule)).toHaveLength(2);
    // a final point followed by an unfinalized one in the same bucket: both kept
    expect(thinPoints([at('a', 100, 1), at('a', 101, 2)], rule)).toHaveLength(2);
  });

  it('same time: the higher block wins', () => {
    expect(thinPoints([at('a', 7, 3), at('a', 8, 3)], rule).map((p) => p.blockNumber)).toEqual([
      8n,
    ]);
    expect(thinPoints([], rule)).toEqual([]);
  });
});
