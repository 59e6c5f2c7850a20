import { type Database, migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilInstance, startAnvil } from '../../src/devnet/index.js';
import { indexOnce, startIndexers } from '../../src/ingest/index.js';
import { chainMigrations } from '../../src/store/index.js';
import { type Fault, type FaultProxy, startFaultProxy } from '../support/fault-proxy.js';
import { checkGroundTruth, storeDigest } from './ground-truth.js';
import { deployWorkload, playRandomOps, type Workload } from './random-workload.js';
import { workloadChain } from './workload-chain.js';

/** A transient trace-probe failure never turns traces off; a restart repairs. */
const log = pino({ level: 'silent' });
let anvil: AnvilInstance;
let proxy: FaultProxy;
let w: Workload;
const dbs: TestDatabase[] = [];

async function freshDb(): Promise<Database> {
  const t = await createTestDatabase('postgres');
  dbs.push(t);
  await migrate(t.db, chainMigrations);
  return t.db;
}

/** Whether a request asks for block traces (Parity or debug). */
const asksTraces = (body: string) =>
  body.includes('debug_traceBlockByNumber') || body.includes('"trace_block"');

/** Fails the first `times` requests mentioning a trace method with `fault`. */
function failTraces(fault: Fault, times = 1) {
  let left = times;
  return (_n: number, body: string): Fault => {
    if (left > 0 && asksTraces(body)) {
      left--;
      return fault;
    }
    return 'pass';
  };
}

async function internalRows(db: Database): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `select count(*)::text as n from activity where extra->>'internal' = 'true'`,
  );
  return Number(rows[0]?.n);
}

async function waitFor(cond: () => boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('timed out waiting');
}

let reference: Database;
beforeAll(async () => {
  anvil = await startAnvil();
  w = await deployWorkload(anvil.rpcUrl, 8, 51);
  await playRandomOps(anvil.rpcUrl, w, { seed: 52, ops: 90, perBlock: 3 });
  proxy = await startFaultProxy(anvil.rpcUrl);
  reference = await freshDb();
  await indexOnce({ db: reference, chains: [workloadChain(anvil.rpcUrl, w)], log });
});
afterAll(async () => {
  await proxy?.close();
  for (const t of dbs) await t.drop();
  await anvil?.stop();
});

describe('trace capability probe', () => {
  it('one -32000 answer to the first trace probe: traces stay on, internal transfers present', async () => {
    expect(await internalRows(reference)).toBeGreaterThan(0);
    proxy.setPolicy(failTraces('serverError'));
    const db = await freshDb();
    await indexOnce({ db, chains: [workloadChain(proxy.url, w)], log });
    expect(proxy.stats.faults.serverError).toBe(1);
    expect(await internalRows(db)).toBe(await internalRows(reference));
    expect((await checkGroundTruth(db, anvil.rpcUrl, 31337)).mismatches).toEqual([]);
    expect(await storeDigest(db, 31337)).toEqual(await storeDigest(reference, 31337));
  });

  it('while the probe keeps failing the chain is not ready (traces unknown), then recovers', async () => {
    proxy.setPolicy(failTraces('serverError', 1_000_000));
    const db = await freshDb();
    const indexers = await startIndexers({
      db,
      chains: [workloadChain(proxy.url, w)],
      log,
      pollIntervalMs: 20,
    });
    try {
      await new Promise((r) => setTimeout(r, 2_500));
      expect(indexers.status()[0]).toMatchObject({ ready: false, traces: 'unknown' });
      proxy.setPolicy(() => 'pass');
      await waitFor(() => indexers.status()[0]?.ready === true);
      expect(indexers.status()[0]?.traces).toBe('supported');
    } finally {
      await indexers.stop();
    }
    expect(await storeDigest(db, 31337)).toEqual(await storeDigest(reference, 31337));
  });

  it('method not found: /health says unsupported; a restart on a node with traces re-indexes', async () => {
    proxy.setPolicy((_n, body) => (asksTraces(body) ? 'methodNotFound' : 'pass'));
    const db = await freshDb();
    const indexers = await startIndexers({
      db,
      chains: [workloadChain(proxy.url, w)],
      log,
      pollIntervalMs: 20,
    });
    try {
      await waitFor(() => indexers.status()[0]?.ready === true);
      expect(indexers.status()[0]?.traces).toBe('unsupported');
    } finally {
      await indexers.stop();
    }
    expect(await internalRows(db)).toBe(0);
    const { rows } = await db.query<{ capabilities: { traces: boolean } }>(
      'select capabilities from checkpoints',
    );
    expect(rows[0]?.capabilities.traces).toBe(false);

    // The node now serves traces: the restart re-probes and re-indexes the blocks that lack them.
    proxy.setPolicy(() => 'pass');
    await indexOnce({ db, chains: [workloadChain(proxy.url, w)], log });
    expect(await internalRows(db)).toBe(await internalRows(reference));
    expect(await storeDigest(db, 31337)).toEqual(await storeDigest(reference, 31337));
  });
});
