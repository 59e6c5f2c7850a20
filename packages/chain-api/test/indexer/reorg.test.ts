import { type Database, migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import pino from 'pino';
import { encodeFunctionData, type Hex, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilInstance, startAnvil } from '../../src/devnet/index.js';
import { indexOnce, startIndexers } from '../../src/ingest/index.js';
import { chainMigrations } from '../../src/store/index.js';
import { checkGroundTruth, storeDigest } from './ground-truth.js';
import { deployWorkload, playRandomOps, rpcCall, send, type Workload } from './random-workload.js';
import { workloadChain } from './workload-chain.js';

const log = pino({ level: 'silent' });
const erc20 = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);
let anvil: AnvilInstance;
let w: Workload;
const dbs: TestDatabase[] = [];

async function freshDb(): Promise<Database> {
  const t = await createTestDatabase('postgres');
  dbs.push(t);
  await migrate(t.db, chainMigrations);
  return t.db;
}

const chain = () => workloadChain(anvil.rpcUrl, w, { finalityDepth: 64 });
const head = async () => BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber'));

/** Mines exactly `blocks` blocks, each with a token transfer and a native send, varied by `seed`. */
async function mineActivity(blocks: number, seed: number): Promise<void> {
  await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [false]);
  for (let i = 0; i < blocks; i++) {
    const a = w.wallets[(seed + i) % w.wallets.length] as Hex;
    const b = w.wallets[(seed * 7 + i * 3 + 1) % w.wallets.length] as Hex;
    const token = w.erc20[(seed + i) % 3] as Hex;
    await send(
      anvil.rpcUrl,
      a,
      token,
      encodeFunctionData({
        abi: erc20,
        functionName: 'transfer',
        args: [b, BigInt(1000 + seed * 13 + i)],
      }),
    );
    await send(anvil.rpcUrl, b, a, '0x', BigInt(777 + seed + i));
    await rpcCall(anvil.rpcUrl, 'evm_mine');
  }
  await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [true]);
}

/** The store after a reorg must equal a fresh index of the node's final chain, and the chain state. */
async function expectConsistent(db: Database): Promise<void> {
  const gt = await checkGroundTruth(db, anvil.rpcUrl, 31337);
  expect(gt.mismatches).toEqual([]);
  expect(gt.block).toBe(await head());
  const fresh = await freshDb();
  await indexOnce({ db: fresh, chains: [chain()], log, batchSize: 4 });
  expect(await storeDigest(db, 31337)).toEqual(await storeDigest(fresh, 31337));
}

beforeAll(async () => {
  anvil = await startAnvil();
  w = await deployWorkload(anvil.rpcUrl, 8, 21);
  await playRandomOps(anvil.rpcUrl, w, { seed: 22, ops: 60, perBlock: 3 });
});
afterAll(async () => {
  for (const t of dbs) await t.drop();
  await anvil?.stop();
});

describe('reorgs', () => {
  it('rolls back a depth-1 reorg (same height, different block) and re-indexes', async () => {
    const db = await freshDb();
    const snap = await rpcCall<string>(anvil.rpcUrl, 'evm_snapshot');
    await mineActivity(1, 1);
    await indexOnce({ db, chains: [chain()], log, batchSize: 3 });
    const before = await head();
    const orphan = await rpcCall<{ hash: string }>(anvil.rpcUrl, 'eth_getBlockByNumber', [
      'latest',
      false,
    ]);
    await rpcCall(anvil.rpcUrl, 'evm_revert', [snap]);
    await mineActivity(1, 2);
    expect(await head()).toBe(before);
    const replaced = await rpcCall<{ hash: string }>(anvil.rpcUrl, 'eth_getBlockByNumber', [
      'latest',
      false,
    ]);
    expect(replaced.hash).not.toBe(orphan.hash);
    await indexOnce({ db, chains: [chain()], log, batchSize: 3 });
    await expectConsistent(db);
  });

  it('rolls back a reorg deeper than the batch size', async () => {
    const db = await freshDb();
    const snap = await rpcCall<string>(anvil.rpcUrl, 'evm_snapshot');
    await mineActivity(10, 3);
    await indexOnce({ db, chains: [chain()], log, batchSize: 3 });
    await rpcCall(anvil.rpcUrl, 'evm_revert', [snap]);
    await mineActivity(12, 4); // a longer branch from the same parent
    await indexOnce({ db, chains: [chain()], log, batchSize: 3 });
    await expectConsistent(db);
    const { rows } = await db.query<{ n: string }>('select count(*) as n from reorg_undo');
    expect(Number(rows[0]?.n)).toBeGreaterThan(0); // the unfinalized window keeps its undo log
  });

  it('repairs a reorg while following the head (anvil_reorg)', async () => {
    const db = await freshDb();
    const indexers = await startIndexers({
      db,
      chains: [chain()],
      log,
      pollIntervalMs: 50,
      batchSize: 2,
    });
    try {
      await waitFor(async () => indexers.status()[0]?.ready === true);
      await mineActivity(3, 5);
      const h = await head();
      await waitFor(async () => BigInt(indexers.status()[0]?.indexed_block ?? 0) >= h);
      // Replace the last 4 blocks with 4 different ones (one transfer each).
      const [a, b] = w.wallets as [Hex, Hex];
      const tx = (i: number) => [
        {
          from: a,
          to: w.erc20[0],
          data: encodeFunctionData({
            abi: erc20,
            functionName: 'transfer',
            args: [b, BigInt(5 + i)],
          }),
          gas: '0x30000',
        },
        i,
      ];
      await rpcCall(anvil.rpcUrl, 'anvil_reorg', [4, [tx(0), tx(1), tx(2), tx(3)]]);
      const after = await head();
      const newTip = await rpcCall<{ hash: string }>(anvil.rpcUrl, 'eth_getBlockByNumber', [
        `0x${after.toString(16)}`,
        false,
      ]);
      await waitFor(async () => {
        const { rows } = await db.query<{ indexed_hash: string }>(
          'select indexed_hash from checkpoints',
        );
        return rows[0]?.indexed_hash === newTip.hash;
      });
      // The console shows what was repaired: one reorg that replaced the last 4 blocks.
      expect(indexers.status()[0]?.reorgs).toEqual({ count: 1, deepest: 4 });
      await indexers.stop();
      await expectConsistent(db);
    } finally {
      await indexers.stop();
    }
  });
});

async function waitFor(cond: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('timed out waiting');
}
