import { type Database, migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilInstance, startAnvil } from '../../src/devnet/index.js';
import { TraceUnavailableError } from '../../src/ingest/block-traces.js';
import { fetchRange } from '../../src/ingest/fetch-range.js';
import { indexOnce } from '../../src/ingest/index.js';
import { createRpcClient } from '../../src/rpc/create-rpc-client.js';
import { chainMigrations } from '../../src/store/index.js';
import { type Fault, type FaultProxy, startFaultProxy } from '../support/fault-proxy.js';
import { checkGroundTruth, storeDigest } from './ground-truth.js';
import { deployWorkload, playRandomOps, rpcCall, type Workload } from './random-workload.js';
import { workloadChain } from './workload-chain.js';

// geth answers {txHash, error} in debug_traceBlockByNumber for a transaction its tracer gave up
// on (timeout), anvil past its state window the same with "Resource not found". Read as "no
// internal transfers" that loses activity rows and leaves recipients' balances unrefreshed.
const log = pino({ level: 'silent' });
let anvil: AnvilInstance;
let proxy: FaultProxy;
let w: Workload;
const dbs: TestDatabase[] = [];
let reference: Record<string, string>;

async function freshDb(): Promise<Database> {
  const t = await createTestDatabase('postgres');
  dbs.push(t);
  await migrate(t.db, chainMigrations);
  return t.db;
}

/** Faults by method; counts the calls of each method seen. */
function route(faults: Record<string, Fault>, seen: Map<string, number>) {
  return (_n: number, body: string): Fault => {
    for (const m of body.matchAll(/"method":"([a-zA-Z_0-9]+)"/g)) {
      seen.set(m[1]!, (seen.get(m[1]!) ?? 0) + 1);
    }
    for (const [method, fault] of Object.entries(faults)) {
      if (body.includes(`"method":"${method}"`)) return fault;
    }
    return 'pass';
  };
}

beforeAll(async () => {
  anvil = await startAnvil();
  proxy = await startFaultProxy(anvil.rpcUrl);
  w = await deployWorkload(anvil.rpcUrl, 8, 31);
  // WETH withdrawals pay native out in an internal call: only traces show them.
  await playRandomOps(anvil.rpcUrl, w, { seed: 32, ops: 80, perBlock: 4 });
  const db = await freshDb();
  await indexOnce({ db, chains: [workloadChain(anvil.rpcUrl, w)], log });
  reference = await storeDigest(db, 31337);
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  for (const t of dbs) await t.drop();
  await anvil?.stop();
});

describe('transactions the node fails to trace in a block trace', () => {
  it('are traced again from Parity trace_block: the store equals a clean index and the chain', async () => {
    const seen = new Map<string, number>();
    proxy.setPolicy(route({ debug_traceBlockByNumber: 'traceErrors' }, seen));
    const db = await freshDb();
    await indexOnce({ db, chains: [workloadChain(proxy.url, w)], log });
    expect(seen.get('trace_block')).toBeGreaterThan(0);
    expect(await storeDigest(db, 31337)).toEqual(reference);
    expect((await checkGroundTruth(db, anvil.rpcUrl, 31337)).mismatches).toEqual([]);
  }, 120_000);

  it('without trace_block, one debug_traceTransaction per failed transaction', async () => {
    const seen = new Map<string, number>();
    proxy.setPolicy(
      route({ debug_traceBlockByNumber: 'traceErrors', trace_block: 'methodNotFound' }, seen),
    );
    const db = await freshDb();
    await indexOnce({ db, chains: [workloadChain(proxy.url, w)], log });
    expect(seen.get('debug_traceTransaction')).toBeGreaterThan(0);
    expect(await storeDigest(db, 31337)).toEqual(reference);
  }, 120_000);

  it('when no method traces it, the range fails naming the transaction (never stored untraced)', async () => {
    proxy.setPolicy(
      route(
        {
          debug_traceBlockByNumber: 'traceErrors',
          trace_block: 'serverError',
          debug_traceTransaction: 'serverError',
        },
        new Map(),
      ),
    );
    const rpc = createRpcClient({ url: proxy.url, timeoutMs: 5_000 });
    const head = BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber'));
    const caps = { traces: true, blockReceipts: true, multicall3: w.multicall3 };
    await expect(fetchRange(rpc, caps, head - 3n, head)).rejects.toThrow(TraceUnavailableError);
    await expect(fetchRange(rpc, caps, head - 3n, head)).rejects.toThrow(
      /block \d+ transaction \d+ \(0x[0-9a-f]{64}\) could not be traced \(block trace: execution timeout/,
    );
    proxy.setPolicy(() => 'pass');
    const blocks = await fetchRange(rpc, caps, head - 3n, head);
    expect(blocks.every((b) => b.traces?.length === b.block.transactions.length)).toBe(true);
  }, 60_000);
});
