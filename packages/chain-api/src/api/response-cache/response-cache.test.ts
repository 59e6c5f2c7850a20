import { describe, expect, it } from 'vitest';
import { nextMinute } from './next-minute.js';
import { type CacheFill, ResponseCache } from './response-cache.js';

const body = (text: string): CacheFill => ({ body: { parts: [Buffer.from(text)] } });

describe('ResponseCache', () => {
  it('serves a hit only for the same store version and before expiry', async () => {
    let now = 1_000;
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 500, now: () => now });
    let fills = 0;
    const fill = async () => body(`v${++fills}`);
    expect((await cache.getOrFill('a', 1, fill)).outcome).toBe('miss');
    const hit = await cache.getOrFill('a', 1, fill);
    expect(hit.outcome).toBe('hit');
    expect(hit.body.parts[0]!.toString()).toBe('v1');
    // The store moved on: recompute.
    const changed = await cache.getOrFill('a', 2, fill);
    expect(changed.outcome).toBe('miss');
    expect(changed.body.parts[0]!.toString()).toBe('v2');
    now += 499;
    expect((await cache.getOrFill('a', 2, fill)).outcome).toBe('hit');
    now += 1;
    expect((await cache.getOrFill('a', 2, fill)).outcome).toBe('miss');
    expect(fills).toBe(3);
  });

  it('honours an earlier expiry given by the fill, serving the old body while one refresh runs', async () => {
    let now = 10_000;
    const cache = new ResponseCache({
      maxBytes: 1 << 20,
      maxAgeMs: 60_000,
      staleWhileRevalidateMs: 1_000,
      now: () => now,
    });
    let fills = 0;
    let release: (() => void) | undefined;
    const fill = async () => {
      const n = ++fills;
      if (n > 1) await new Promise<void>((resolve) => (release = resolve));
      return { ...body(`minute ${n}`), expiresAt: now + 100 };
    };
    await cache.getOrFill('k', 1, fill);
    now = 10_099;
    expect((await cache.getOrFill('k', 1, fill)).outcome).toBe('hit');
    now = 10_100;
    // Past the clock boundary: the old body at once, one refresh behind it for everybody.
    const stale = await Promise.all([cache.getOrFill('k', 1, fill), cache.getOrFill('k', 1, fill)]);
    expect(stale.map((r) => r.outcome)).toEqual(['stale', 'stale']);
    expect(stale[0]!.body.parts[0]!.toString()).toBe('minute 1');
    expect(fills).toBe(2);
    release!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const fresh = await cache.getOrFill('k', 1, fill);
    expect(fresh.outcome).toBe('hit');
    expect(fresh.body.parts[0]!.toString()).toBe('minute 2');
    // Too far past the boundary (refresh never came back): computed while the caller waits.
    now += 100 + 1_000;
    const waited = cache.getOrFill('k', 1, fill);
    await new Promise((resolve) => setTimeout(resolve, 0));
    release!();
    expect((await waited).outcome).toBe('miss');
  });

  it('never serves a stale body across a store change', async () => {
    let now = 0;
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 60_000, now: () => now });
    await cache.getOrFill('k', 1, async () => ({ ...body('old'), expiresAt: 100 }));
    now = 150;
    const next = await cache.getOrFill('k', 2, async () => body('new'));
    expect(next.outcome).toBe('miss');
    expect(next.body.parts[0]!.toString()).toBe('new');
  });

  it('shares one computation among concurrent misses of a key', async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 60_000 });
    let fills = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const fill = async () => {
      fills++;
      await gate;
      return body('shared');
    };
    const pending = Array.from({ length: 20 }, () => cache.getOrFill('k', 7, fill));
    release();
    const results = await Promise.all(pending);
    expect(fills).toBe(1);
    expect(results.filter((r) => r.outcome === 'miss')).toHaveLength(1);
    expect(results.filter((r) => r.outcome === 'shared')).toHaveLength(19);
    // A caller at a newer version does not take the older computation.
    expect((await cache.getOrFill('k', 8, async () => body('newer'))).outcome).toBe('miss');
  });

  it('does not keep failures: every caller sees the error and the next call retries', async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 60_000 });
    const failing = async (): Promise<CacheFill> => {
      throw new Error('database down');
    };
    await expect(
      Promise.all([cache.getOrFill('k', 1, failing), cache.getOrFill('k', 1, failing)]),
    ).rejects.toThrow('database down');
    expect(cache.size).toBe(0);
    expect((await cache.getOrFill('k', 1, async () => body('ok'))).outcome).toBe('miss');
    expect((await cache.getOrFill('k', 1, async () => body('ok'))).outcome).toBe('hit');
  });

  it('evicts the least recently used entries past its byte budget and skips huge bodies', async () => {
    const cache = new ResponseCache({ maxBytes: 1_000, maxAgeMs: 60_000 });
    const fill = (n: number) => async () => body('x'.repeat(n));
    for (const key of ['a', 'b', 'c', 'd']) await cache.getOrFill(key, 1, fill(240));
    expect(cache.size).toBe(4);
    await cache.getOrFill('a', 1, fill(240)); // a is now the most recent
    await cache.getOrFill('e', 1, fill(240)); // 5 x 241 > 1,000: evicts b, the oldest
    expect(cache.size).toBe(4);
    expect(cache.bytes).toBeLessThanOrEqual(1_000);
    expect((await cache.getOrFill('a', 1, fill(240))).outcome).toBe('hit');
    expect((await cache.getOrFill('c', 1, fill(240))).outcome).toBe('hit');
    expect((await cache.getOrFill('b', 1, fill(240))).outcome).toBe('miss');
    // Over a quarter of the budget: answered, never kept.
    expect((await cache.getOrFill('huge', 1, fill(400))).outcome).toBe('miss');
    expect((await cache.getOrFill('huge', 1, fill(400))).outcome).toBe('miss');
  });
});

describe('nextMinute', () => {
  it('is the start of the following minute', () => {
    expect(nextMinute(new Date('2026-11-22T03:04:59.999Z'))).toBe(
      Date.parse('2026-11-22T03:05:00.000Z'),
    );
    expect(nextMinute(new Date('2026-11-22T03:05:00.000Z'))).toBe(
      Date.parse('2026-11-22T03:06:00.000Z'),
    );
  });
});
