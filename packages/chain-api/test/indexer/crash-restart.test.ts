import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Database, migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainConfig } from '../../src/chains/index.js';
import { type AnvilInstance, startAnvil } from '../../src/devnet/index.js';
import { indexOnce } from '../../src/ingest/index.js';
import { chainMigrations } from '../../src/store/index.js';
import { checkGroundTruth, storeDigest } from './ground-truth.js';
import { deployWorkload, playRandomOps, rpcCall, type Workload } from './random-workload.js';
import { workloadChain } from './workload-chain.js';

const log = pino({ level: 'silent' });
const childScript = fileURLToPath(new URL('./indexer-child.ts', import.meta.url));
let anvil: AnvilInstance;
let w: Workload;
const dbs: TestDatabase[] = [];
const children = new Set<ChildProcess>();

beforeAll(async () => {
  anvil = await startAnvil();
  w = await deployWorkload(anvil.rpcUrl, 10, 31);
  await playRandomOps(anvil.rpcUrl, w, { seed: 32, ops: 200, perBlock: 2 });
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  for (const t of dbs) await t.drop();
  await anvil?.stop();
});

function spawnIndexer(url: string, chain: ChainConfig, batchSize = 3): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', childScript], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      CHAIN_JSON: JSON.stringify({ ...chain, startBlock: chain.startBlock.toString() }),
      BATCH_SIZE: String(batchSize),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

async function indexedBlock(db: Database): Promise<bigint> {
  const { rows } = await db.query<{ indexed_block: string }>(
    'select indexed_block from checkpoints',
  );
  return BigInt(rows[0]?.indexed_block ?? -1);
}

async function waitFor(cond: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('timed out waiting');
}

const exited = (c: ChildProcess) =>
  new Promise<void>((resolve) =>
    c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', () => resolve()),
  );

describe('crash safety', () => {
  it('kill -9 mid-backfill, restart, same store as an uninterrupted run', async () => {
    const chain = workloadChain(anvil.rpcUrl, w);
    const head = BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber'));

    const ref = await createTestDatabase('postgres');
    dbs.push(ref);
    await migrate(ref.db, chainMigrations);
    await indexOnce({ db: ref.db, chains: [chain], log, batchSize: 50 });

    const t = await createTestDatabase('postgres');
    dbs.push(t);
    await migrate(t.db, chainMigrations);
    const kills: bigint[] = [];
    for (const fraction of [0.25, 0.5, 0.75]) {
      const child = spawnIndexer(t.url as string, chain);
      const mark = (head * BigInt(Math.round(fraction * 100))) / 100n;
      await waitFor(async () => (await indexedBlock(t.db)) >= mark);
      child.kill('SIGKILL');
      await exited(child);
      kills.push(await indexedBlock(t.db));
    }
    expect(kills[2]).toBeLessThan(head); // really interrupted mid-backfill
    const last = spawnIndexer(t.url as string, chain);
    await waitFor(async () => (await indexedBlock(t.db)) >= head);
    last.kill('SIGTERM');
    await exited(last);

    expect(await storeDigest(t.db, 31337)).toEqual(await storeDigest(ref.db, 31337));
    const gt = await checkGroundTruth(t.db, anvil.rpcUrl, 31337);
    expect(gt.mismatches).toEqual([]);
  }, 180_000);

  it('a standby replica takes over the chain when the leader dies', async () => {
    const chain = workloadChain(anvil.rpcUrl, w);
    const t = await createTestDatabase('postgres');
    dbs.push(t);
    await migrate(t.db, chainMigrations);
    const a = spawnIndexer(t.url as string, chain, 2);
    const head = BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber'));
    await new Promise<void>((resolve) => a.stdout?.once('data', () => resolve()));
    const b = spawnIndexer(t.url as string, chain, 20); // standby: the lock is taken
    await new Promise((r) => setTimeout(r, 1_000));
    // Exactly one session holds this schema's lock for the chain.
    const locks = await t.db.query<{ n: string }>(
      `select count(*) as n from pg_locks l join pg_stat_activity s on s.pid = l.pid
        where l.locktype = 'advisory' and l.granted and l.objid = 31337
          and s.application_name = 'sluice-indexer-31337'
          and l.classid = (hashtext(current_schema() || ':sluice-indexer'))::oid`,
    );
    expect(locks.rows[0]?.n).toBe('1');
    a.kill('SIGKILL');
    await exited(a);
    const before = await indexedBlock(t.db);
    // On a fast machine the leader may finish the backfill before it dies, so new blocks are
    // mined after its death: only the standby can index them.
    await playRandomOps(anvil.rpcUrl, w, { seed: 33, ops: 20, perBlock: 2 });
    const newHead = BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber'));
    expect(newHead).toBeGreaterThan(head);
    await waitFor(async () => (await indexedBlock(t.db)) >= newHead, 60_000);
    expect(await indexedBlock(t.db)).toBeGreaterThan(before);
    b.kill('SIGTERM');
    await exited(b);
    const gt = await checkGroundTruth(t.db, anvil.rpcUrl, 31337);
    expect(gt.mismatches).toEqual([]);
  }, 180_000);
});
