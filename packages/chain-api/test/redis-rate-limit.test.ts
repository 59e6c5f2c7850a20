import { migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore } from '../src/keys/key-store.js';
import { storeMigrations } from '../src/store/migrations.js';
import { type CliProcess, startCli } from './support/cli-process.js';
import { addr } from './support/seed-store.js';

/**
 * Two API replicas (`sluice-chain serve --no-index`, separate processes) on one PostgreSQL and
 * one Redis share each key's budget; without Redis each replica counts on its own.
 */

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const wallet = addr('rl-wallet');
let t: TestDatabase;
let redisUp = false;
const running: CliProcess[] = [];

beforeAll(async () => {
  const probe = new Redis(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  try {
    await probe.connect();
    await probe.ping();
    redisUp = true;
  } catch (error) {
    if (process.env.CI === 'true')
      throw new Error(`Redis unreachable at TEST_REDIS_URL: ${String(error)}`);
  } finally {
    probe.disconnect();
  }
  t = await createTestDatabase('postgres');
  await migrate(t.db, storeMigrations);
}, 120_000);

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  await t?.drop();
});

function replicaEnv(extra: Record<string, string>): Record<string, string> {
  return {
    DATABASE_URL: t.url!,
    RPC_URL_31337: 'http://127.0.0.1:9',
    HOST: '127.0.0.1',
    PORT: '0',
    RATE_LIMIT_MAX: '6',
    RATE_LIMIT_WINDOW_MS: '60000',
    ...extra,
  };
}

async function hit(urls: string[], key: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${urls[i % urls.length]}/v1/evm/activity/${wallet}`, {
      headers: { 'x-sim-api-key': key },
    });
    statuses.push(res.status);
    if (res.status === 429) {
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await res.json()) as { error: string }).error).toMatch(/contact sales/);
    } else {
      await res.arrayBuffer();
    }
  }
  return statuses;
}

describe('rate limit across replicas', () => {
  it('shares one budget per key through Redis', async (ctx) => {
    if (!redisUp) ctx.skip();
    const [a, b] = await Promise.all([
      startCli(['serve', '--no-index'], replicaEnv({ REDIS_URL: redisUrl })),
      startCli(['serve', '--no-index'], replicaEnv({ REDIS_URL: redisUrl })),
    ]);
    running.push(a, b);
    const { key } = await createKeyStore(t.db).create({ name: 'shared' });
    const statuses = await hit([a.url, b.url], key, 10);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429, 429, 429]);
    // Another key is unaffected, on either replica.
    const other = (await createKeyStore(t.db).create({ name: 'other' })).key;
    expect(await hit([b.url, a.url], other, 2)).toEqual([200, 200]);
  }, 120_000);

  it('without Redis each replica counts on its own', async () => {
    const [a, b] = await Promise.all([
      startCli(['serve', '--no-index'], replicaEnv({})),
      startCli(['serve', '--no-index'], replicaEnv({})),
    ]);
    running.push(a, b);
    const { key } = await createKeyStore(t.db).create({ name: 'local' });
    const statuses = await hit([a.url, b.url], key, 14);
    expect(statuses.filter((s) => s === 200)).toHaveLength(12);
    expect(statuses.slice(12)).toEqual([429, 429]);
  }, 120_000);
});
