import { migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilInstance, startAnvil } from '../../src/devnet/index.js';
import { indexOnce, startIndexers } from '../../src/ingest/index.js';
import { createRpcClient } from '../../src/rpc/index.js';
import { chainMigrations } from '../../src/store/index.js';
import { type FaultProxy, seededFaults, startFaultProxy } from '../support/fault-proxy.js';
import { checkGroundTruth, storeDigest } from './ground-truth.js';
import { deployWorkload, playRandomOps, rpcCall, type Workload } from './random-workload.js';
import { workloadChain } from './workload-chain.js';

const log = pino({ level: 'silent' });
let anvil: AnvilInstance;
let proxy: FaultProxy;
let w: Workload;
const dbs: TestDatabase[] = [];

async function freshDb() {
  const t = await createTestDatabase('postgres');
  dbs.push(t);
  await migrate(t.db, chainMigrations);
  return t.db;
}

beforeAll(async () => {
  anvil = await startAnvil();
  w = await deployWorkload(anvil.rpcUrl, 10, 41);
  await playRandomOps(anvil.rpcUrl, w, { seed: 42, ops: 150, perBlock: 3 });
  proxy = await startFaultProxy(anvil.rpcUrl);
});
afterAll(async () => {
  await proxy?.close();
  for (const t of dbs) await t.drop();
  await anvil?.stop();
});

describe('RPC faults', () => {
  it('indexes through timeouts, 429s, 5xx, garbage, truncated and partial answers and drops: same store', async () => {
    const reference = await freshDb();
    await indexOnce({
      db: reference,
      chains: [workloadChain(anvil.rpcUrl, w)],
      log,
      batchSize: 10,
    });

    const db = await freshDb();
    proxy.setPolicy(seededFaults(1234, 0.3));
    const rpc = createRpcClient({
      url: proxy.url,
      timeoutMs: 400,
      backoffBaseMs: 5,
      batchSize: 20,
    });
    await indexOnce({ db, chains: [workloadChain(proxy.url, w)], log, batchSize: 10, rpc });
    proxy.setPolicy(() => 'pass');
    const injected = Object.entries(proxy.stats.faults).filter(([k]) => k !== 'pass');
    expect(injected.length).toBeGreaterThanOrEqual(6); // most kinds of fault really happened
    expect(await storeDigest(db, 31337)).toEqual(await storeDigest(reference, 31337));
    expect((await checkGroundTruth(db, anvil.rpcUrl, 31337)).mismatches).toEqual([]);
  });

  it('reports not ready while the node is down and catches up when it returns', async () => {
    const db = await freshDb();
    const indexers = await startIndexers({
      db,
      chains: [workloadChain(proxy.url, w)],
      log,
      pollIntervalMs: 50,
      rpcOptions: { timeoutMs: 300, backoffBaseMs: 5 },
    });
    try {
      await waitFor(() => indexers.status()[0]?.ready === true);
      proxy.setPolicy(() => 'drop'); // the node goes away
      await waitFor(() => indexers.status()[0]?.ready === false);
      await rpcCall(anvil.rpcUrl, 'evm_mine');
      proxy.setPolicy(() => 'pass');
      const head = Number(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber'));
      await waitFor(
        () => indexers.status()[0]?.ready === true && indexers.status()[0]?.indexed_block === head,
      );
    } finally {
      proxy.setPolicy(() => 'pass');
      await indexers.stop();
    }
  });
});

async function waitFor(cond: () => boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('timed out waiting');
}
