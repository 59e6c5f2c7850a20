import { migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainStatus } from '../../src/api/readiness.js';
import { createApiServer } from '../../src/api/server.js';
import { knownChains } from '../../src/chains/index.js';
import { createKeyStore } from '../../src/keys/key-store.js';
import { storeMigrations } from '../../src/store/migrations.js';
import { testChains } from '../support/api-harness.js';
import { addr } from '../support/seed-store.js';

/**
 * /health is public: it shows every key's compute units and requests of this day and month as
 * totals, and how many wallet backfills run, never which keys or wallets.
 */

const backfilling = [addr('secret-wallet-1'), addr('secret-wallet-2')];
const wallet = addr('health-wallet');
let t: TestDatabase;
let app: FastifyInstance;
let url: string;
const keys: { key: string; id: string; name: string; hint: string }[] = [];

beforeAll(async () => {
  t = await createTestDatabase('postgres');
  await migrate(t.db, storeMigrations);
  const chains = testChains();
  // What a wallets-mode indexer reports: two backfills running, by wallet.
  const wallets = {
    mode: 'wallets',
    tracked: 7,
    discovery: 'ots',
    completed: 5,
    failed: 0,
    running: backfilling.map((w) => ({
      wallet: w,
      phase: 'fetch',
      transactions: 3,
      fetched: 1,
      seconds: 0.5,
    })),
  };
  const status = (): ChainStatus[] =>
    chains.map((c) => ({
      chain_id: c.chainId,
      name: c.name,
      head_block: 10,
      indexed_block: 10,
      lag_seconds: 0,
      ready: true,
      wallets,
    }));
  app = await createApiServer({
    db: t.db,
    chains,
    wellKnownChains: knownChains,
    statusSource: { status },
    cursorSecret: 'test-cursor-secret-0123456789abcdef',
    rateLimit: { max: 1_000_000, windowMs: 60_000 },
    computeUnits: { meter: { flushMs: 50, idleMs: 50 } },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  for (const name of ['health-alpha', 'health-beta']) {
    const { key, record } = await createKeyStore(t.db).create({ name, cuQuota: 1_000 });
    keys.push({ key, id: record.id, name, hint: record.hint });
  }
}, 120_000);

afterAll(async () => {
  await app?.close();
  await t?.drop();
});

describe('/health privacy', () => {
  it('shows usage totals and backfill counts, never keys or wallets', async () => {
    const before = (await (await fetch(`${url}/health`)).json()) as {
      usage: { day: { compute_units: number; requests: number } };
    };
    // 3 (activity) + 2 (balances on mainnet) + 1 (transactions), two of them by the second key.
    for (const [path, key] of [
      [`/v1/evm/activity/${wallet}`, keys[0]!.key],
      [`/v1/evm/balances/${wallet}?chain_ids=mainnet`, keys[1]!.key],
      [`/v1/evm/transactions/${wallet}`, keys[1]!.key],
      ['/v1/evm/balances/0x12', keys[0]!.key], // a 400: neither units nor a request
    ] as const) {
      const res = await fetch(`${url}${path}`, { headers: { 'x-sim-api-key': key } });
      await res.arrayBuffer();
    }
    let text = '';
    await expect
      .poll(
        async () => {
          text = await (await fetch(`${url}/health`)).text();
          const usage = (JSON.parse(text) as typeof before).usage;
          return [
            usage.day.compute_units - before.usage.day.compute_units,
            usage.day.requests - before.usage.day.requests,
          ];
        },
        { timeout: 20_000, interval: 50 },
      )
      .toEqual([6, 3]);
    const body = JSON.parse(text) as {
      usage: Record<string, { start: string; compute_units: number; requests: number }>;
      chains: { wallets: Record<string, unknown> }[];
    };
    const now = new Date();
    expect(body.usage.day!.start).toBe(
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString(),
    );
    expect(body.usage.month!.compute_units).toBeGreaterThanOrEqual(6);
    expect(Object.keys(body.usage.day!).sort()).toEqual(['compute_units', 'requests', 'start']);
    expect(body.chains[0]!.wallets).toMatchObject({ running: 2, completed: 5, tracked: 7 });
    for (const w of backfilling) {
      expect(text).not.toContain(w);
      expect(text).not.toContain(w.slice(2));
    }
    for (const k of keys) {
      for (const secret of [k.key, k.id, k.name, k.hint]) expect(text).not.toContain(secret);
    }
    expect(text).not.toContain(wallet.slice(2));
  }, 60_000);
});
