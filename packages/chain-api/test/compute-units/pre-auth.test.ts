import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import type { KeyStore } from '../../src/keys/key-store.js';
import { startTestApi, type TestApi } from '../support/api-harness.js';
import { addr } from '../support/seed-store.js';

/**
 * Before authentication: each client address may cause only so many key-store lookups per
 * window (then 429, no query), and unknown keys are answered from memory for a while, so a flood
 * of made-up keys costs a bounded number of database queries.
 */

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const wallet = addr('pre-auth');
const path = `/v1/evm/transactions/${wallet}`;
const apis: TestApi[] = [];
let redisUp = false;

beforeAll(async () => {
  const probe = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await probe.connect();
    await probe.ping();
    redisUp = true;
  } catch (error) {
    if (process.env.CI === 'true') throw new Error(`Redis unreachable: ${String(error)}`);
  } finally {
    probe.disconnect();
  }
});
afterAll(async () => {
  for (const api of apis) await api.close();
});

/** A server whose key-store lookups are counted. */
async function countedApi(opts: Parameters<typeof startTestApi>[0] = {}) {
  const counter = { lookups: 0 };
  const api = await startTestApi({
    keyCacheTtlMs: 600_000,
    ...opts,
    wrapKeyStore: (store: Pick<KeyStore, 'findActiveByHash'>) => ({
      findActiveByHash(hash) {
        counter.lookups += 1;
        return store.findActiveByHash(hash);
      },
    }),
  });
  apis.push(api);
  return { api, counter };
}

const randomKey = () => `sluice_${randomBytes(24).toString('base64url')}`;

/** `count` requests, `parallel` at a time, each with `headers(i)`; the statuses in order. */
async function flood(
  url: string,
  count: number,
  headers: (i: number) => Record<string, string>,
  parallel = 100,
): Promise<number[]> {
  const statuses: number[] = [];
  for (let start = 0; start < count; start += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - start) }, async (_, j) => {
      const res = await fetch(`${url}${path}`, { headers: headers(start + j) });
      await res.arrayBuffer();
      return res.status;
    });
    statuses.push(...(await Promise.all(batch)));
  }
  return statuses;
}
const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

describe('key lookups before authentication', () => {
  it('3,000 made-up keys from one address: 429 after the bound, one lookup each until then', async () => {
    // Failed lookups count: the bound is exact in answers; lookups already in flight when it is
    // reached (at most one batch of the flood) still finish and are refused too.
    const { api, counter } = await countedApi({ keyLookups: { perIp: 50, windowMs: 600_000 } });
    // A real key used before the flood stays cached and keeps working through it.
    expect((await api.get(path)).status).toBe(200);
    expect(counter.lookups).toBe(1);

    const statuses = await flood(api.url, 3_000, () => ({ 'x-sim-api-key': randomKey() }));
    expect(count(statuses, 401)).toBe(50);
    expect(count(statuses, 429)).toBe(2_950);
    expect(counter.lookups).toBeGreaterThanOrEqual(51);
    expect(counter.lookups).toBeLessThanOrEqual(51 + 100);
    const afterFlood = counter.lookups;

    const limited = await fetch(`${api.url}${path}`, { headers: { 'x-sim-api-key': randomKey() } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await limited.json()) as { error: string }).error).toMatch(
      /^Too many requests\. Please contact sales to increase your limit/,
    );
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await api.get(path)).status).toBe(200);
    expect(counter.lookups).toBe(afterFlood);
  }, 120_000);

  it('shares one lookup among concurrent requests with the same key (a busy client stays under the bound)', async () => {
    const { api, counter } = await countedApi({
      // Long enough for a round of 50 to finish inside it (a key's requests beyond its request
      // slots wait for them, so a round is not instantaneous), short enough to expire between.
      keyCacheTtlMs: 500,
      keyLookups: { perIp: 5, windowMs: 600_000 },
    });
    for (let round = 0; round < 3; round++) {
      const statuses = await flood(api.url, 50, () => ({ 'x-sim-api-key': api.key }), 50);
      expect(count(statuses, 200)).toBe(50);
      // Past the positive cache's 500 ms: the next round looks the key up again, once.
      await new Promise((resolve) => setTimeout(resolve, 550));
    }
    expect(counter.lookups).toBeLessThanOrEqual(5);
    const bad = randomKey();
    const statuses = await flood(api.url, 50, () => ({ 'x-sim-api-key': bad }), 50);
    expect(count(statuses, 401) + count(statuses, 429)).toBe(50);
    expect(counter.lookups).toBeLessThanOrEqual(5);
  }, 60_000);

  it('answers a repeated unknown key from memory: one lookup for 200 requests', async () => {
    const { api, counter } = await countedApi({ keyLookups: { perIp: 1_000, windowMs: 60_000 } });
    const bad = randomKey();
    const statuses = await flood(api.url, 200, () => ({ 'x-sim-api-key': bad }), 1);
    expect(count(statuses, 401)).toBe(200);
    expect(counter.lookups).toBe(1);
    // Over-long keys never reach the store at all.
    const long = await fetch(`${api.url}${path}`, {
      headers: { 'x-sim-api-key': 'k'.repeat(300) },
    });
    expect(long.status).toBe(401);
    expect(counter.lookups).toBe(1);
  }, 60_000);

  it('forgets an unknown key after UNKNOWN_KEY_CACHE_MS and asks the store again', async () => {
    const { api, counter } = await countedApi({
      keyLookups: { perIp: 1_000, windowMs: 60_000, unknownKeyTtlMs: 200 },
    });
    const bad = randomKey();
    expect((await api.get(path, { 'x-sim-api-key': bad })).status).toBe(401);
    await expect
      .poll(
        async () => {
          await (await api.get(path, { 'x-sim-api-key': bad })).arrayBuffer();
          return counter.lookups;
        },
        { timeout: 20_000, interval: 100 },
      )
      .toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('ignores X-Forwarded-For unless TRUST_PROXY is on', async () => {
    const direct = await countedApi({ keyLookups: { perIp: 10, windowMs: 600_000 } });
    const spoofed = await flood(direct.api.url, 100, (i) => ({
      'x-sim-api-key': randomKey(),
      'x-forwarded-for': `10.0.${Math.floor(i / 250)}.${i % 250}`,
    }));
    expect(count(spoofed, 429)).toBe(90);
    // Lookups in flight when the bound is reached still finish (at most the flood's 100).
    expect(direct.counter.lookups).toBeGreaterThanOrEqual(10);
    expect(direct.counter.lookups).toBeLessThanOrEqual(100);

    const proxied = await countedApi({
      trustProxy: true,
      keyLookups: { perIp: 10, windowMs: 600_000 },
    });
    const clients = await flood(proxied.api.url, 60, (i) => ({
      'x-sim-api-key': randomKey(),
      'x-forwarded-for': `10.1.0.${i % 3}`,
    }));
    expect(count(clients, 401)).toBe(30);
    expect(count(clients, 429)).toBe(30);
    expect(proxied.counter.lookups).toBeGreaterThanOrEqual(30);
    expect(proxied.counter.lookups).toBeLessThanOrEqual(60);
  }, 120_000);

  it('shares the per-address bound between API servers through Redis', async (ctx) => {
    if (!redisUp) ctx.skip();
    const clients = [new Redis(redisUrl), new Redis(redisUrl)];
    const namespace = `pre-auth-${randomBytes(4).toString('hex')}:`;
    try {
      await Promise.all(clients.map((c) => c.ping()));
      const servers = await Promise.all(
        clients.map((redis) =>
          countedApi({
            keyLookups: { perIp: 20, windowMs: 600_000 },
            rateLimit: { redis, namespace },
          }),
        ),
      );
      const statuses = await Promise.all(
        servers.map((s) => flood(s.api.url, 100, () => ({ 'x-sim-api-key': randomKey() }))),
      );
      const lookups = servers[0]!.counter.lookups + servers[1]!.counter.lookups;
      expect(count(statuses.flat(), 401)).toBe(20);
      expect(count(statuses.flat(), 429)).toBe(180);
      // Lookups in flight when the shared bound is reached still finish (at most the floods' 200).
      expect(lookups).toBeGreaterThanOrEqual(20);
      expect(lookups).toBeLessThanOrEqual(200);
    } finally {
      for (const c of clients) c.disconnect();
    }
  }, 120_000);
});

describe('key lookup settings', () => {
  it('reads KEY_LOOKUPS_PER_IP, KEY_LOOKUP_WINDOW_MS and UNKNOWN_KEY_CACHE_MS, refusing bad values', () => {
    expect(loadConfig({}).keyLookups).toEqual({
      perIp: 120,
      windowMs: 60_000,
      unknownKeyTtlMs: 30_000,
    });
    expect(
      loadConfig({
        KEY_LOOKUPS_PER_IP: '5',
        KEY_LOOKUP_WINDOW_MS: '1000',
        UNKNOWN_KEY_CACHE_MS: '0',
      }).keyLookups,
    ).toEqual({ perIp: 5, windowMs: 1_000, unknownKeyTtlMs: 0 });
    expect(() => loadConfig({ KEY_LOOKUPS_PER_IP: '0' })).toThrow(/KEY_LOOKUPS_PER_IP/);
    expect(() => loadConfig({ KEY_LOOKUP_WINDOW_MS: 'soon' })).toThrow(/KEY_LOOKUP_WINDOW_MS/);
    expect(() => loadConfig({ UNKNOWN_KEY_CACHE_MS: '-1' })).toThrow(/UNKNOWN_KEY_CACHE_MS/);
  });
});
