import { describe, expect, it } from 'vitest';
import type { PriceAtRequest } from './context.js';
import { memoizedPricesAt } from './price-memo.js';

describe('memoizedPricesAt', () => {
  const hour = 3_600_000;
  let clock = 10 * hour;
  const calls: PriceAtRequest[][] = [];
  let price = 1;
  const lookup = memoizedPricesAt(
    async (items) => {
      calls.push([...items]);
      return items.map(() => price);
    },
    { now: () => clock, memoTtlMs: 30_000, settledAfterMs: 15 * 60_000 },
  );
  const old = { chainId: 1, token: '0xAbC', time: new Date(clock - hour) };
  const recent = { chainId: 1, token: '0xabc', time: new Date(clock - 60_000) };

  it('reuses settled answers within the TTL and always queries recent times', async () => {
    expect(await lookup([old, recent])).toEqual([1, 1]);
    price = 2;
    expect(await lookup([old, recent])).toEqual([1, 2]);
    expect(calls.map((c) => c.length)).toEqual([2, 1]);
    expect(calls[1]?.[0]).toBe(recent);
  });

  it('queries again after the TTL (backfilled history shows up)', async () => {
    clock += 31_000;
    expect(await lookup([old])).toEqual([2]);
    expect(calls).toHaveLength(3);
  });
});
