import { type Database, migrate, openDatabase } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer } from '../../src/api/server.js';
import { knownChains } from '../../src/chains/index.js';
import { createKeyStore } from '../../src/keys/key-store.js';
import { createRedisUsageStore, usageNamespace } from '../../src/keys/redis-usage-store.js';
import { usageSlot } from '../../src/keys/usage-period.js';
import { createDbUsageStore, type UsageStore } from '../../src/keys/usage-store.js';
import { storeMigrations } from '../../src/store/migrations.js';
import { testChains } from '../support/api-harness.js';
import { runCli as sluice } from '../support/cli-process.js';
import { addr } from '../support/seed-store.js';

/**
 * Two API servers (each with its own meter, pool and Redis connection, as two processes have)
 * share each key's quota: through Redis when it is configured, through the database otherwise.
 * `sluice-chain keys usage` reads the same counters.
 */

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const wallet = addr('shared-cu');
let t: TestDatabase;
let redisUp = false;
const closers: (() => Promise<void>)[] = [];

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
  t = await createTestDatabase('postgres');
  await migrate(t.db, storeMigrations);
}, 120_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await t?.drop();
});

/** One API server with its own pool and the usage store `store(pool)` builds. */
async function server(store: (db: Database) => UsageStore): Promise<string> {
  const db = await openDatabase({ url: t.url!, max: 5 });
  const chains = testChains();
  const app: FastifyInstance = await createApiServer({
    db,
    chains,
    wellKnownChains: knownChains,
    statusSource: {
      status: () =>
        chains.map((c) => ({
          chain_id: c.chainId,
          name: c.name,
          head_block: 1,
          indexed_block: 1,
          lag_seconds: 0,
          ready: true,
        })),
    },
    cursorSecret: 'test-cursor-secret-0123456789abcdef',
    rateLimit: { max: 1_000_000, windowMs: 60_000 },
    computeUnits: { store: store(db) },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  closers.push(async () => {
    await app.close();
    await db.close();
  });
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

/** `count` one-unit requests at once, alternating between the servers; their statuses. */
async function burst(urls: string[], key: string, count: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const res = await fetch(`${urls[i % urls.length]}/v1/evm/balances/${wallet}?chain_ids=1`, {
        headers: { 'x-sim-api-key': key },
      });
      await res.arrayBuffer();
      return res.status;
    }),
  );
}

const tally = (statuses: number[]) => ({
  ok: statuses.filter((s) => s === 200).length,
  refused: statuses.filter((s) => s === 402).length,
});

describe('one quota across API servers', () => {
  it('counts in Redis when configured: exactly the quota passes across two servers', async (ctx) => {
    if (!redisUp) ctx.skip();
    const clients = [new Redis(redisUrl), new Redis(redisUrl)];
    closers.push(async () => {
      for (const c of clients) c.disconnect();
    });
    await Promise.all(clients.map((c) => c.ping()));
    const urls = await Promise.all(
      clients.map((c) => server(() => createRedisUsageStore(c, usageNamespace, () => {}))),
    );
    const { key, record } = await createKeyStore(t.db).create({ name: 'redis', cuQuota: 10 });
    expect(tally(await burst(urls, key, 50))).toEqual({ ok: 10, refused: 40 });

    const slot = usageSlot(record.id, 'month', new Date());
    const counter = `${usageNamespace}cu:${record.id}:month:${slot.periodStart.getTime()}`;
    expect(await clients[0]!.get(counter)).toBe('10');
    // Expires after its period (plus a day), never lingers forever.
    expect(await clients[0]!.pttl(counter)).toBeGreaterThan(0);
    // Counted in Redis, not in the database.
    const { rows } = await t.db.query('select 1 from api_key_usage where key_id = $1', [record.id]);
    expect(rows).toHaveLength(0);

    // The CLI reads the same counter when REDIS_URL is set.
    const out = await sluice(['keys', 'usage', '--json'], {
      DATABASE_URL: t.url!,
      REDIS_URL: redisUrl,
    });
    expect(out.code).toBe(0);
    const line = (JSON.parse(out.stdout) as { id: string; used: number; remaining: number }[]).find(
      (l) => l.id === record.id,
    );
    expect(line).toMatchObject({ used: 10, quota: 10, remaining: 0, period: 'month' });
  }, 120_000);

  it('counts in the database without Redis: exactly the quota passes across two servers', async () => {
    const urls = await Promise.all([server(createDbUsageStore), server(createDbUsageStore)]);
    const { key, record } = await createKeyStore(t.db).create({ name: 'db', cuQuota: 10 });
    expect(tally(await burst(urls, key, 50))).toEqual({ ok: 10, refused: 40 });
    const { rows } = await t.db.query<{ compute_units: string }>(
      'select compute_units from api_key_usage where key_id = $1',
      [record.id],
    );
    expect(rows.map((r) => Number(r.compute_units))).toEqual([10]);

    // A larger quota with leases ahead: never passed, and most of it used.
    const big = await createKeyStore(t.db).create({ name: 'db-big', cuQuota: 200 });
    const { ok } = tally(await burst(urls, big.key, 300));
    expect(ok).toBeLessThanOrEqual(200);
    expect(ok).toBeGreaterThan(150);
    const out = await sluice(['keys', 'usage', '--json'], { DATABASE_URL: t.url! });
    const line = (JSON.parse(out.stdout) as { id: string; used: number }[]).find(
      (l) => l.id === big.record.id,
    );
    expect(line!.used).toBeLessThanOrEqual(200);
    expect(line!.used).toBeGreaterThanOrEqual(ok);
  }, 120_000);
});
