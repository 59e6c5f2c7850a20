import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopedReadDb } from '../../src/api/limits/bounded-db.js';
import { KeyedLimiter } from '../../src/api/limits/keyed-limiter.js';
import {
  defaultRequestLimits,
  type RequestScope,
  requestTimedOut,
} from '../../src/api/limits/request-scope.js';
import { resolveChainConfig } from '../../src/chains/index.js';
import { startTestApi, type TestApi } from '../support/api-harness.js';
import { type HeavyStore, seedHeavyStore } from '../support/heavy-wallet.js';
import { type ScriptedNode, startScriptedNode } from '../support/scripted-node.js';

/**
 * One deadline per request: a request waiting on a node that never answers gets a 503 JSON error
 * with Retry-After at REQUEST_TIMEOUT_MS, and its node request is aborted (the node sees the
 * connection close); a PostgreSQL statement running at the deadline is cancelled on the server.
 */
const TIMEOUT_MS = 800;
let api: TestApi;
let node: ScriptedNode;
let store: HeavyStore;

beforeAll(async () => {
  node = await startScriptedNode(() => 'hang');
  const chain = { ...resolveChainConfig(31337), rpcUrl: node.url };
  api = await startTestApi({ chains: [chain], limits: { timeoutMs: TIMEOUT_MS } });
  store = await seedHeavyStore(api.t.db, { spamTokens: 5, days: 10 });
  // The native balance changed after every block: each past block needs the node.
  await api.t.db.query(`update native_balances set updated_block = $1 where wallet = $2`, [
    store.headBlock,
    store.spamWallet,
  ]);
}, 120_000);
afterAll(async () => {
  await api?.close();
  await node?.close();
});

function scopeUntil(ms: number): RequestScope & { controller: AbortController } {
  const controller = new AbortController();
  setTimeout(() => controller.abort(requestTimedOut(ms)), ms).unref();
  return {
    controller,
    signal: controller.signal,
    limits: defaultRequestLimits,
    key: () => 'key:test',
    dbSlots: new KeyedLimiter(2),
    nodeSlots: new KeyedLimiter(2),
    requestSlots: new KeyedLimiter(2),
    nodeReads: 0,
  };
}

describe('request deadline', () => {
  it('a request stuck on the node is a 503 JSON error with Retry-After at the deadline', async () => {
    const started = performance.now();
    const res = await api.get(
      `/v1/evm/balances/${store.spamWallet}?chain_ids=31337&block_number=3`,
    );
    const elapsed = performance.now() - started;
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = (await res.json()) as { error: string };
    expect(body.error).toMatch(/timed out/i);
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    // Without a deadline: three node attempts of 10 s each.
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 4_000);
    expect(node.calls.length).toBeGreaterThan(0);
    // Nothing left running: the node request was aborted (long before the client's 10 s timeout).
    const until = Date.now() + 5_000;
    while (node.held() > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(node.held()).toBe(0);
  });

  it('other requests of the server still answer while one is stuck', async () => {
    const stuck = api.get(`/v1/evm/balances/${store.spamWallet}?chain_ids=31337&block_number=4`);
    const res = await api.get(`/v1/evm/balances/${store.lightWallet}?chain_ids=31337`);
    expect(res.status).toBe(200);
    expect((await stuck).status).toBe(503);
  });

  it('cancels a running PostgreSQL statement on the server at the deadline', async () => {
    const scope = scopeUntil(300);
    const db = scopedReadDb(api.serverDb, scope);
    const started = performance.now();
    const outcome = await db
      .query('select pg_sleep(30) as slept_for_the_deadline_test')
      .catch((error: unknown) => error);
    expect((outcome as { code?: string }).code).toBe('REQUEST_TIMEOUT');
    expect(performance.now() - started).toBeLessThan(3_000);
    const running = async () =>
      Number(
        (
          await api.t.db.query<{ n: string }>(
            `select count(*)::text as n from pg_stat_activity
              where state = 'active' and query like '%slept_for_the_deadline_test%'
                and pid <> pg_backend_pid()`,
          )
        ).rows[0]?.n,
      );
    // Well before the pool's own statement_timeout (5 s) would end it.
    const until = Date.now() + 2_000;
    while ((await running()) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(await running()).toBe(0);
    // The connection went back to the pool in working order.
    expect((await api.serverDb.query<{ one: number }>('select 1 as one')).rows[0]?.one).toBe(1);
  });

  it('a statement after the deadline is not started; outside a request nothing changes', async () => {
    const scope = scopeUntil(1);
    const db = scopedReadDb(api.serverDb, scope);
    await new Promise((r) => setTimeout(r, 20));
    await expect(db.query('select 1')).rejects.toMatchObject({ code: 'REQUEST_TIMEOUT' });
    // The store itself (outside any request) still answers.
    expect((await api.serverDb.query<{ one: number }>('select 1 as one')).rows[0]?.one).toBe(1);
  });
});
