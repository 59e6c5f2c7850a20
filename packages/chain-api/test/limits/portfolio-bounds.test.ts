import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveChainConfig } from '../../src/chains/index.js';
import { pricingLookups } from '../../src/cli/pricing-lookups.js';
import { createKeyStore } from '../../src/keys/key-store.js';
import { startTestApi, type TestApi } from '../support/api-harness.js';
import { type HeavyStore, seedHeavyStore } from '../support/heavy-wallet.js';
import { loop, sampleRss } from '../support/load-probe.js';
import { type ScriptedNode, startScriptedNode } from '../support/scripted-node.js';

/**
 * `portfolio?days=365` for a wallet holding 10,000 spam tokens whose native balance needs the
 * node on every day: the series values at most PORTFOLIO_MAX_TOKENS tokens (never-priced ones
 * cost no price lookups), makes at most REQUEST_MAX_NODE_READS past-state reads, and answers in
 * bounded time and memory while another key's reads keep working.
 */
const MAX_NODE_READS = 12;
let api: TestApi;
let node: ScriptedNode;
let store: HeavyStore;
let otherKey: string;

beforeAll(async () => {
  // A node without old state: every past read fails at once (no retry).
  node = await startScriptedNode(() => ({ error: { code: -32000, message: 'missing trie node' } }));
  const chain = { ...resolveChainConfig(31337), rpcUrl: node.url };
  let db: TestApi['serverDb'] | undefined;
  api = await startTestApi({
    chains: [chain],
    pricingFrom: (serverDb) => {
      db = serverDb;
      return pricingLookups(serverDb, [chain]);
    },
    limits: { maxNodeReads: MAX_NODE_READS, maxPortfolioTokens: 50 },
  });
  expect(db).toBeDefined();
  store = await seedHeavyStore(api.t.db, { spamTokens: 10_000, days: 366 });
  await api.t.db.query(`update native_balances set updated_block = $1 where wallet = $2`, [
    store.headBlock,
    store.spamWallet,
  ]);
  otherKey = (await createKeyStore(api.t.db).create({ name: 'other' })).key;
}, 180_000);
afterAll(async () => {
  await api?.close();
  await node?.close();
});

type Point = {
  value_usd: number;
  complete: boolean;
  chains: { unpriced_tokens: string[]; unpriced_count: number; priced_tokens: number }[];
};

describe('portfolio of a spam wallet over 365 days', () => {
  it('is bounded in tokens valued, node reads, time and memory', async () => {
    const rssBefore = process.memoryUsage().rss;
    const rss = sampleRss();
    let done = false;
    const other = loop(
      api.url,
      otherKey,
      [`/v1/evm/balances/${store.lightWallet}?chain_ids=31337`],
      4,
      () => done,
    );
    const started = performance.now();
    const res = await api.get(`/v1/evm/portfolio/${store.spamWallet}?days=365&chain_ids=31337`);
    const elapsed = performance.now() - started;
    done = true;
    const light = await other;
    const peak = rss.stop();
    expect(res.status).toBe(200);
    const body = (await res.json()) as { points: Point[]; warnings?: { code: string }[] };
    expect(body.points).toHaveLength(365);
    const codes = body.warnings?.map((w) => w.code) ?? [];
    expect(codes).toContain('PORTFOLIO_TOKENS_CAPPED');
    expect(codes).toContain('HISTORICAL_STATE_UNAVAILABLE');
    // The priced token (5 at 2 USD) is valued on every day; the native balance is unknown.
    const last = body.points.at(-1)!;
    expect(last.value_usd).toBeCloseTo(10, 6);
    // Today the native balance is the stored one; on the days before only the node could tell.
    expect(last.complete).toBe(true);
    expect(body.points.filter((p) => !p.complete).length).toBeGreaterThan(300);
    // The 49 spam tokens considered of 10,000 and the native asset (no wrapped-native price):
    // all counted, 20 named per point.
    expect(last.chains[0]?.unpriced_count).toBe(50);
    expect(last.chains[0]?.unpriced_tokens).toHaveLength(20);
    // One eth_getBalance per past-state read, at most the request's budget.
    const reads = node.calls.filter((c) => c.method === 'eth_getBalance').length;
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThanOrEqual(MAX_NODE_READS);
    // Before: 10,000 tokens x 365 days = 3.65 million price lookups in one statement.
    expect(elapsed).toBeLessThan(15_000);
    expect(peak - rssBefore).toBeLessThan(400 * 1024 * 1024);
    expect(light.failures).toEqual({});
  });
});
