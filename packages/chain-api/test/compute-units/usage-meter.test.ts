import { migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore } from '../../src/keys/key-store.js';
import { createRedisUsageStore } from '../../src/keys/redis-usage-store.js';
import { createUsageMeter, type MeteredKey } from '../../src/keys/usage-meter.js';
import { periodBounds, usageSlot } from '../../src/keys/usage-period.js';
import { createDbUsageStore } from '../../src/keys/usage-store.js';
import { storeMigrations } from '../../src/store/migrations.js';

/**
 * The meter reserves units ahead in leases so most requests cost no round trip, yet never lets a
 * quota pass, gives unused units back (idle, at close, on a refund) and starts each period anew.
 */

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase('pglite');
  await migrate(t.db, storeMigrations);
}, 120_000);
afterAll(async () => {
  await t?.drop();
});

const newKey = async (cuQuota: number | null, cuPeriod: 'day' | 'month' = 'month') => {
  const { record } = await createKeyStore(t.db).create({ name: 'meter', cuQuota, cuPeriod });
  return { id: record.id, cuQuota, cuPeriod } satisfies MeteredKey;
};
const stored = async (key: MeteredKey, at = new Date()) =>
  (await createDbUsageStore(t.db).read([usageSlot(key.id, key.cuPeriod, at)]))[0];

describe('usage meter', () => {
  it('leases ahead for unlimited keys and gives the unused part back at close', async () => {
    const store = createDbUsageStore(t.db);
    let roundTrips = 0;
    const counted = {
      ...store,
      reserve: (...a: Parameters<typeof store.reserve>) => {
        roundTrips += 1;
        return store.reserve(...a);
      },
    };
    const meter = createUsageMeter(counted, { maxLease: 100, idleMs: 60_000 });
    const key = await newKey(null);
    for (let i = 0; i < 150; i++) {
      const r = await meter.reserve(key, 1);
      expect(r.granted).toBe(true);
      if (r.granted) meter.settle(r, true);
    }
    // A lease of 100, refilled in the background before it runs out: a few round trips.
    expect(roundTrips).toBeGreaterThanOrEqual(2);
    expect(roundTrips).toBeLessThanOrEqual(3);
    expect(await stored(key)).toBeGreaterThanOrEqual(200);
    await meter.close();
    expect(await stored(key)).toBe(150);
    const totals = await store.totals(new Date());
    expect(totals.month.requests).toBeGreaterThanOrEqual(150);
  });

  it('refills a lease before it runs out: requests do not wait for the store', async () => {
    const store = createDbUsageStore(t.db);
    const slow = {
      ...store,
      reserve: async (...a: Parameters<typeof store.reserve>) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return store.reserve(...a);
      },
    };
    const meter = createUsageMeter(slow, { maxLease: 100, idleMs: 60_000 });
    const key = await newKey(null);
    let waited = 0;
    for (let i = 0; i < 300; i++) {
      if (!meter.reserveHeld(key, 1)) {
        waited += 1;
        expect((await meter.reserve(key, 1)).granted).toBe(true);
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(waited).toBe(1); // only the first request, when nothing was held yet
    await meter.close();
    expect(await stored(key)).toBe(300);
  });

  it('never passes a quota, whatever the lease sizes; the refused learn the count', async () => {
    const meter = createUsageMeter(createDbUsageStore(t.db), { maxLease: 100 });
    const key = await newKey(1_000);
    const outcomes = await Promise.all(Array.from({ length: 1_100 }, () => meter.reserve(key, 1)));
    expect(outcomes.filter((o) => o.granted)).toHaveLength(1_000);
    const refused = outcomes.find((o) => !o.granted);
    expect(refused).toMatchObject({ granted: false, quota: 1_000, used: 1_000 });
    expect(await stored(key)).toBe(1_000);
    // A request larger than what is left is refused even when smaller ones would pass.
    const small = await newKey(5);
    expect((await meter.reserve(small, 4)).granted).toBe(true);
    expect((await meter.reserve(small, 2)).granted).toBe(false);
    expect((await meter.reserve(small, 1)).granted).toBe(true);
    await meter.close();
  });

  it('uses what it holds and what the store has left together', async () => {
    const a = createUsageMeter(createDbUsageStore(t.db), { idleMs: 60_000 });
    const b = createUsageMeter(createDbUsageStore(t.db), { idleMs: 60_000 });
    const key = await newKey(320);
    expect((await a.reserve(key, 1)).granted).toBe(true); // exact: the count is unknown
    expect((await a.reserve(key, 1)).granted).toBe(true); // a lease of 19 (301 left / 16)
    expect(await stored(key)).toBe(20);
    expect((await b.reserve(key, 298)).granted).toBe(true); // 2 left in the store, 18 held by a
    expect((await b.reserve(key, 1)).granted).toBe(true); // 1 left in the store
    expect((await a.reserve(key, 19)).granted).toBe(true); // 18 held + the last 1
    expect(await stored(key)).toBe(320);
    expect((await a.reserve(key, 1)).granted).toBe(false);
    await a.close();
    await b.close();
    expect(await stored(key)).toBe(320);
  });

  it('gives refunded and idle units back', async () => {
    const meter = createUsageMeter(createDbUsageStore(t.db), { idleMs: 50, flushMs: 20 });
    const key = await newKey(3);
    const first = await meter.reserve(key, 3);
    expect(first.granted).toBe(true);
    expect((await meter.reserve(key, 1)).granted).toBe(false);
    if (first.granted) meter.settle(first, false); // the request failed: its units return
    const second = await meter.reserve(key, 3);
    expect(second.granted).toBe(true);
    expect(await stored(key)).toBe(3);

    const unlimited = await newKey(null);
    const r = await meter.reserve(unlimited, 2);
    if (r.granted) meter.settle(r, true);
    // The lease of 100 goes back once the key is idle.
    await expect.poll(() => stored(unlimited), { timeout: 20_000, interval: 20 }).toBe(2);
    await meter.close();
  });

  it('starts each period anew and gives the old lease back', async () => {
    const dayEnd = periodBounds('day', new Date()).end.getTime();
    let now = dayEnd - 1_000;
    const meter = createUsageMeter(createDbUsageStore(t.db), { now: () => now, idleMs: 60_000 });
    const key = await newKey(10, 'day');
    for (let i = 0; i < 10; i++) expect((await meter.reserve(key, 1)).granted).toBe(true);
    expect((await meter.reserve(key, 1)).granted).toBe(false);
    now = dayEnd + 1_000;
    const next = await meter.reserve(key, 1);
    expect(next).toMatchObject({ granted: true });
    expect(next.slot.periodStart.getTime()).toBe(dayEnd);
    expect(await stored(key, new Date(dayEnd - 1_000))).toBe(10);
    expect(await stored(key, new Date(dayEnd + 1_000))).toBe(1);
    await meter.close();
  });

  it('fails open (uncounted) while Redis is unreachable, and says so once', async () => {
    const redis = new Redis('redis://127.0.0.1:9', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
    });
    const told: unknown[] = [];
    const store = createRedisUsageStore(redis, 'meter-test:', (e) => told.push(e));
    const meter = createUsageMeter(store);
    const key = await newKey(1);
    for (let i = 0; i < 3; i++) expect((await meter.reserve(key, 1)).granted).toBe(true);
    expect(told).toHaveLength(1);
    await meter.close();
    redis.disconnect();
  });
});
