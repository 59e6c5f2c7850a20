import { type Database, migrate, openDatabase } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainConfig } from '../../src/chains/index.js';
import { chainMigrations } from '../../src/db/index.js';
import { type AnvilInstance, startAnvil } from '../../src/devnet/index.js';
import { ChainIndexer } from '../../src/ingest/index.js';
import { captureLog } from '../support/capture-log.js';
import { checkGroundTruth } from './ground-truth.js';
import { rpcCall, send, waitReceipt } from './random-workload.js';

/** A leader whose lock session the database terminated stops writing at once. */
const DEV = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266' as Hex;
let anvil: AnvilInstance;
let t: TestDatabase;
let second: Database;

async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('timed out waiting');
}

const chain = (): ChainConfig => ({
  chainId: 31337,
  name: 'devnet',
  tags: ['devnet'],
  nativeSymbol: 'ETH',
  nativeName: 'Ether',
  nativeDecimals: 18,
  rpcUrl: anvil.rpcUrl,
  startBlock: 0n,
  finalityDepth: 5,
  stablecoins: [],
  uniswapV2Factories: [],
  uniswapV3Factories: [],
});

let sent = 0;
/** Sends n transfers and waits until the last one is sealed (anvil may answer before it is). */
async function mine(n: number): Promise<void> {
  let last: Hex | undefined;
  for (let i = 0; i < n; i++) {
    const to = `0x${(++sent).toString(16).padStart(40, '7')}` as Hex;
    last = await send(anvil.rpcUrl, DEV, to, '0x', BigInt(1000 + sent));
  }
  if (last) await waitReceipt(anvil.rpcUrl, last);
}

beforeAll(async () => {
  anvil = await startAnvil();
  t = await createTestDatabase('postgres');
  await migrate(t.db, chainMigrations);
  second = await openDatabase({ url: t.url as string });
  await mine(10);
});
afterAll(async () => {
  await second?.close();
  await t?.drop();
  await anvil?.stop();
});

describe('lost leadership', () => {
  it('pg_terminate_backend of the lock session: the old leader stops writing, the standby takes over', async () => {
    const la = captureLog();
    const lb = captureLog();
    const opts = { pollIntervalMs: 10, standbyRetryMs: 100, batchSize: 1, maxBatchSize: 1 };
    const a = new ChainIndexer(t.db, chain(), { ...opts, log: la.log });
    const b = new ChainIndexer(second, chain(), { ...opts, log: lb.log });
    let mining = false;
    let miner: Promise<void> = Promise.resolve();
    a.start();
    try {
      await waitFor(() => a.status().ready);
      b.start();
      await waitFor(() => lb.lines.length > 0 || b.status().indexed_block !== null);

      // Keep blocks coming so the leader is busy writing when its session dies.
      mining = true;
      miner = (async () => {
        while (mining) await mine(1);
      })();
      // A backlog: the leader is mid-backfill (one block per batch) when its session dies.
      await rpcCall(anvil.rpcUrl, 'anvil_mine', ['0x96']);
      const before = a.stats.batches;
      await waitFor(() => a.stats.batches >= before + 10);
      const { rows } = await t.db.query<{ pid: number }>(
        `select pid from pg_locks where locktype = 'advisory' and granted and objid = 31337
            and classid = (hashtext(current_schema() || ':sluice-indexer'))::oid`,
      );
      expect(rows).toHaveLength(1);
      await t.db.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
      await waitFor(() => la.lines.some((l) => l.msg.startsWith('leader lock lost')));
      const batchesAtLoss = a.stats.batches;
      await waitFor(() => lb.lines.some((l) => l.msg === 'leader lock acquired'));
      const bStart = b.stats.batches;
      await waitFor(() => b.stats.batches >= bStart + 5);
      mining = false;
      await miner;
      const head = BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber'));
      await waitFor(() => BigInt(b.status().indexed_block ?? -1) >= head);

      // The old leader wrote nothing after the loss (at most the batch already committing).
      expect(a.stats.batches - batchesAtLoss).toBeLessThanOrEqual(1);
      const all = [...la.lines, ...lb.lines].map((l) => l.msg);
      expect(all).not.toContain('checkpoint moved under us; reloading');
      expect(b.status().ready).toBe(true);
      const gt = await checkGroundTruth(t.db, anvil.rpcUrl, 31337);
      expect(gt.mismatches).toEqual([]);
      expect(gt.block).toBe(head);
    } finally {
      mining = false;
      await miner.catch(() => {});
      await a.stop();
      await b.stop();
    }
  }, 120_000);
});
