import { type Database, migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { StatusSource } from '../../src/api/readiness.js';
import { createApiServer } from '../../src/api/server.js';
import type { ChainConfig } from '../../src/chains/index.js';
import { knownChains } from '../../src/chains/index.js';
import { pricingLookups } from '../../src/cli/pricing-lookups.js';
import { createKeyStore } from '../../src/keys/key-store.js';
import { storeMigrations } from '../../src/store/migrations.js';

export const log = pino({ level: process.env.TEST_LOG ?? 'silent' });

/** A store with every migration and an API server over it. */
export interface Served {
  t: TestDatabase;
  db: Database;
  app: FastifyInstance;
  url: string;
  key: string;
}

/** Fresh PostgreSQL schema + API server for `chain` (status from `statusSource`). */
export async function serveStore(
  chain: ChainConfig,
  statusSource: StatusSource,
  walletWaitMs = 30_000,
  responseCache?: { maxBytes: number; maxAgeMs: number },
  opts: { pricing?: boolean } = {},
): Promise<Served> {
  const t = await createTestDatabase('postgres');
  await migrate(t.db, storeMigrations);
  const { key } = await createKeyStore(t.db).create({ name: 'test' });
  const app = await createApiServer({
    db: t.db,
    chains: [chain],
    wellKnownChains: knownChains,
    statusSource,
    cursorSecret: 'test-cursor-secret-0123456789abcdef',
    rateLimit: { max: 1_000_000, windowMs: 60_000 },
    walletWaitMs,
    responseCache,
    // The API's price lookups (prices at block times), as `sluice-chain serve` has them.
    ...(opts.pricing ? { pricing: pricingLookups(t.db, [chain]) } : {}),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { t, db: t.db, app, url: `http://127.0.0.1:${port}`, key };
}

/** A status source that always reports the chain ready (the full-mode reference store). */
export function alwaysReady(chainId: number): StatusSource {
  return {
    status: () => [
      {
        chain_id: chainId,
        name: 'devnet',
        head_block: 1,
        indexed_block: 1,
        lag_seconds: 0,
        ready: true,
      },
    ],
  };
}

export interface Page {
  status: number;
  retryAfter: string | null;
  body: Record<string, unknown>;
}

/** Where to ask: an in-process store's API or a `sluice-chain` process (its URL and API key). */
export type ApiAt = Pick<Served, 'url' | 'key'>;

export async function get(s: ApiAt, path: string): Promise<Page & { cache: string | null }> {
  const res = await fetch(`${s.url}${path}`, { headers: { 'x-sim-api-key': s.key } });
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  delete body.request_time;
  delete body.response_time;
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    cache: res.headers.get('x-cache'),
    body,
  };
}

/** The four wallet endpoints, every page (small pages, so cursors are compared too). */
export async function walletAnswers(s: ApiAt, wallet: string): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  const paths: Record<string, string> = {
    activity: `/v1/evm/activity/${wallet}?chain_ids=31337&limit=7`,
    balances: `/v1/evm/balances/${wallet}?chain_ids=31337&limit=3`,
    collectibles: `/v1/evm/collectibles/${wallet}?chain_ids=31337&limit=4`,
    transactions: `/v1/evm/transactions/${wallet}?chain_ids=31337&limit=5`,
  };
  for (const [name, base] of Object.entries(paths)) {
    const pages: unknown[] = [];
    let next: string | undefined;
    for (let i = 0; i < 200; i++) {
      const page = await get(s, next ? `${base}&offset=${encodeURIComponent(next)}` : base);
      pages.push({ status: page.status, ...page.body });
      next = page.body.next_offset as string | undefined;
      if (!next) break;
    }
    out[name] = pages;
  }
  return out;
}

export async function waitFor(cond: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}
