import { describe, expect, it } from 'vitest';
import { Invalidation, walletDeps } from './cache-deps.js';
import { nextMinute } from './next-minute.js';
import { type CacheFill, ResponseCache } from './response-cache.js';

const walletA = '0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const walletB = '0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const body = (text: string, wallet = walletA): CacheFill => ({
  body: { parts: [Buffer.from(text)] },
  deps: walletDeps(wallet, [1]),
});
const walletChange = (wallet: string) => new Invalidation().add('w:1', new Set([wallet.slice(2)]));

describe('ResponseCache', () => {
  it('serves a hit until a change names what it was built from, and before expiry', async () => {
    let now = 1_000;
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 500, now: () => now });
    let fills = 0;
    const fill = async () => body(`v${++fills}`);
    const fillB = async () => body(`b${++fills}`, walletB);
    expect((await cache.getOrFill('a', fill)).outcome).toBe('miss');
    expect((await cache.getOrFill('b', fillB)).outcome).toBe('miss');
    const hit = await cache.getOrFill('a', fill);
    expect(hit.outcome).toBe('hit');
    expect(hit.body.parts[0]!.toString()).toBe('v1');
    // Wallet A changed: A's answer is recomputed, B's stays.
    cache.invalidate(walletChange(walletA));
    const changed = await cache.getOrFill('a', fill);
    expect(changed.outcome).toBe('miss');
    expect(changed.body.parts[0]!.toString()).toBe('v3');
    expect((await cache.getOrFill('b', fillB)).outcome).toBe('hit');
    // Everything on chain 1.
    cache.invalidate(new Invalidation().add('*:1', 'all'));
    expect((await cache.getOrFill('b', fillB)).outcome).toBe('miss');
    now += 499;
    expect((await cache.getOrFill('a', fill)).outcome).toBe('miss');
    expect((await cache.getOrFill('a', fill)).outcome).toBe('hit');
    now += 500;
    expect((await cache.getOrFill('a', fill)).outcome).toBe('miss');
    expect(fills).toBe(6);
  });

  it('keeps a wallet answer through minutes of other wallets changing, and drops it with its own', async () => {
    let now = 0;
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 600_000, now: () => now });
    let fills = 0;
    const fill = async () => body(`a${++fills}`);
    await cache.getOrFill('a', fill);
    // A block every 250 ms for 5 min, each naming other wallets: still the first answer.
    for (let block = 0; block < 1_200; block++) {
      now += 250;
      cache.invalidate(walletChange(walletB));
    }
    const kept = await cache.getOrFill('a', fill);
    expect(kept.outcome).toBe('hit');
    expect(kept.body.parts[0]!.toString()).toBe('a1');
    cache.invalidate(walletChange(walletA));
    const after = await cache.getOrFill('a', fill);
    expect(after.outcome).toBe('miss');
    expect(after.body.parts[0]!.toString()).toBe('a2');
  });

  it('does not keep a fill that a change of its dependencies overtook', async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 60_000 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = (wallet: string) => async () => {
      await gate;
      return body('read before the change', wallet);
    };
    const a = cache.getOrFill('a', slow(walletA));
    const b = cache.getOrFill('b', slow(walletB));
    // A's change commits while both reads run.
    cache.invalidate(walletChange(walletA));
    release();
    expect((await a).outcome).toBe('miss');
    expect((await b).outcome).toBe('miss');
    expect((await cache.getOrFill('a', async () => body('after'))).outcome).toBe('miss');
    expect((await cache.getOrFill('b', async () => body('after', walletB))).outcome).toBe('hit');
  });

  it('bounds history dependencies by time: a change from a later time keeps the answer', async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 60_000 });
    const fill = async (): Promise<CacheFill> => ({
      body: { parts: [Buffer.from('x')] },
      deps: [{ group: 'h:1', key: 'native', bound: 1_000 }],
    });
    await cache.getOrFill('k', fill);
    cache.invalidate(new Invalidation().add('h:1', new Set(['native']), 1_001));
    expect((await cache.getOrFill('k', fill)).outcome).toBe('hit');
    cache.invalidate(new Invalidation().add('h:1', 'all', 1_000));
    expect((await cache.getOrFill('k', fill)).outcome).toBe('miss');
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
    await cache.getOrFill('k', fill);
    now = 10_099;
    expect((await cache.getOrFill('k', fill)).outcome).toBe('hit');
    now = 10_100;
    // Past the clock boundary: the old body at once, one refresh behind it for everybody.
    const stale = await Promise.all([cache.getOrFill('k', fill), cache.getOrFill('k', fill)]);
    expect(stale.map((r) => r.outcome)).toEqual(['stale', 'stale']);
    expect(stale[0]!.body.parts[0]!.toString()).toBe('minute 1');
    expect(fills).toBe(2);
    release!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const fresh = await cache.getOrFill('k', fill);
    expect(fresh.outcome).toBe('hit');
    expect(fresh.body.parts[0]!.toString()).toBe('minute 2');
    // Too far past the boundary (refresh never came back): computed while the caller waits.
    now += 100 + 1_000;
    const waited = cache.getOrFill('k', fill);
    await new Promise((resolve) => setTimeout(resolve, 0));
    release!();
    expect((await waited).outcome).toBe('miss');
  });

  it('never serves a stale body across a store change', async () => {
    let now = 0;
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 60_000, now: () => now });
    await cache.getOrFill('k', async () => ({ ...body('old'), expiresAt: 100 }));
    now = 150;
    cache.invalidate(walletChange(walletA));
    const next = await cache.getOrFill('k', async () => body('new'));
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
    const pending = Array.from({ length: 20 }, () => cache.getOrFill('k', fill));
    release();
    const results = await Promise.all(pending);
    expect(fills).toBe(1);
    expect(results.filter((r) => r.outcome === 'miss')).toHaveLength(1);
    expect(results.filter((r) => r.outcome === 'shared')).toHaveLength(19);
    // A caller after a change does not take a computation that started before it.
    let late!: () => void;
    const started = cache.getOrFill('j', async () => {
      await new Promise<void>((resolve) => {
        late = resolve;
      });
      return body('older');
    });
    cache.invalidate(walletChange(walletB));
    const after = cache.getOrFill('j', async () => body('newer'));
    late();
    expect((await started).outcome).toBe('miss');
    expect((await after).outcome).toBe('miss');
    expect((await after).body.parts[0]!.toString()).toBe('newer');
  });

  it('does not keep failures: every caller sees the error and the next call retries', async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 60_000 });
    const failing = async (): Promise<CacheFill> => {
      throw new Error('database down');
    };
    await expect(
      Promise.all([cache.getOrFill('k', failing), cache.getOrFill('k', failing)]),
    ).rejects.toThrow('database down');
    expect(cache.size).toBe(0);
    expect((await cache.getOrFill('k', async () => body('ok'))).outcome).toBe('miss');
    expect((await cache.getOrFill('k', async () => body('ok'))).outcome).toBe('hit');
  });

  it('evicts the least recently used entries past its byte budget and skips huge bodies', async () => {
    const cache = new ResponseCache({ maxBytes: 1_000, maxAgeMs: 60_000 });
    const fill = (n: number) => async () => body('x'.repeat(n));
    for (const key of ['a', 'b', 'c', 'd']) await cache.getOrFill(key, fill(240));
    expect(cache.size).toBe(4);
    await cache.getOrFill('a', fill(240)); // a is now the most recent
    await cache.getOrFill('e', fill(240)); // 5 x 241 > 1,000: evicts b, the oldest
    expect(cache.size).toBe(4);
    expect(cache.bytes).toBeLessThanOrEqual(1_000);
    expect((await cache.getOrFill('a', fill(240))).outcome).toBe('hit');
    expect((await cache.getOrFill('c', fill(240))).outcome).toBe('hit');
    expect((await cache.getOrFill('b', fill(240))).outcome).toBe('miss');
    // Over a quarter of the budget: answered, never kept.
    expect((await cache.getOrFill('huge', fill(400))).outcome).toBe('miss');
    expect((await cache.getOrFill('huge', fill(400))).outcome).toBe('miss');
  });

  it('gives entries read since the last eviction a second chance, once', async () => {
    const cache = new ResponseCache({ maxBytes: 1_000, maxAgeMs: 60_000 });
    const fill = (n: number) => async () => body('x'.repeat(n));
    for (const key of ['a', 'b', 'c', 'd']) await cache.getOrFill(key, fill(240));
    // Every entry read: the pass clears their marks, then evicts the oldest (a), never e itself.
    for (const key of ['a', 'b', 'c', 'd']) await cache.getOrFill(key, fill(240));
    expect((await cache.getOrFill('e', fill(240))).outcome).toBe('miss');
    expect(cache.size).toBe(4);
    expect(cache.bytes).toBeLessThanOrEqual(1_000);
    // b, c and d lost their marks; c is read again. e was never read since it was kept: it goes.
    expect((await cache.getOrFill('c', fill(240))).outcome).toBe('hit');
    await cache.getOrFill('f', fill(240));
    expect(cache.size).toBe(4);
    for (const key of ['b', 'c', 'd', 'f']) {
      expect((await cache.getOrFill(key, fill(240))).outcome).toBe('hit');
    }
    expect((await cache.getOrFill('e', fill(240))).outcome).toBe('miss');
    expect((await cache.getOrFill('a', fill(240))).outcome).toBe('miss');
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
