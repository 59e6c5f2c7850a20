import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Database, migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectActivity } from '../../src/api/queries/activity-query.js';
import { selectTransactions } from '../../src/api/queries/transactions-query.js';
import type { ChainConfig } from '../../src/chains/index.js';
import { type AnvilInstance, startAnvil } from '../../src/devnet/index.js';
import { indexOnce, startIndexers } from '../../src/ingest/index.js';
import { DEFERRABLE_INDEXES } from '../../src/store/deferred-indexes.js';
import { storeMigrations } from '../../src/store/index.js';
import { checkGroundTruth, storeDigest } from './ground-truth.js';
import { deployWorkload, playRandomOps, rpcCall, type Workload } from './random-workload.js';
import { workloadChain } from './workload-chain.js';

const log = pino({ level: 'silent' });
const childScript = fileURLToPath(new URL('./indexer-child.ts', import.meta.url));
const NAMES = DEFERRABLE_INDEXES.map((i) => i.name).sort();
let anvil: AnvilInstance;
let w: Workload;
let chain: ChainConfig;
let head: bigint;
let ref: TestDatabase;
let refIndexes: Map<string, IndexState>;
const dbs: TestDatabase[] = [];
const children = new Set<ChildProcess>();

interface IndexState {
  oid: number;
  def: string;
}

/** The deferrable indexes present in the store: OID and definition (schema name left out). */
async function indexState(db: Database): Promise<Map<string, IndexState>> {
  const { rows } = await db.query<{ name: string; oid: number; def: string; schema: string }>(
    `select c.relname as name, c.oid::int as oid, pg_get_indexdef(c.oid) as def,
            current_schema() as schema
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind = 'i' and c.relname = any($1::text[])
      order by c.relname`,
    [NAMES],
  );
  return new Map(
    rows.map((r) => [r.name, { oid: r.oid, def: r.def.replaceAll(`${r.schema}.`, '') }]),
  );
}

const defs = (m: Map<string, IndexState>) => Object.fromEntries([...m].map(([k, v]) => [k, v.def]));

async function deferredRows(db: Database): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    'select name from deferred_indexes order by name',
  );
  return rows.map((r) => r.name);
}

async function indexedBlock(db: Database): Promise<bigint> {
  const { rows } = await db.query<{ b: string }>(
    'select indexed_block as b from checkpoints where chain_id = 31337',
  );
  return BigInt(rows[0]?.b ?? -1);
}

async function waitFor(cond: () => Promise<boolean> | boolean, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('timed out waiting');
}

async function freshStore(kind: 'postgres' | 'pglite' = 'postgres'): Promise<TestDatabase> {
  const t = await createTestDatabase(kind);
  dbs.push(t);
  await migrate(t.db, storeMigrations);
  return t;
}

function spawnIndexer(url: string): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', childScript], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      CHAIN_JSON: JSON.stringify({ ...chain, startBlock: chain.startBlock.toString() }),
      BATCH_SIZE: '3',
      STORE_MIGRATIONS: '1',
      DEFER_INDEXES_MIN_BLOCKS: '10',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

const exited = (c: ChildProcess) =>
  new Promise<void>((resolve) =>
    c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', () => resolve()),
  );

/** Every wallet's whole activity feed, its feed of one token and its transactions. */
async function answers(db: Database): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for (const wallet of [...w.wallets, w.deployer].map((a) => a.toLowerCase())) {
    out.push(await selectActivity(db, { wallet, chainIds: [31337], limit: 10_000 }));
    const token = (w.erc20[0] as string).toLowerCase();
    out.push(
      await selectActivity(db, { wallet, chainIds: [31337], tokens: [token], limit: 10_000 }),
    );
    out.push(await selectTransactions(db, { wallet, chainIds: [31337], limit: 10_000 }));
  }
  return out;
}

beforeAll(async () => {
  anvil = await startAnvil();
  w = await deployWorkload(anvil.rpcUrl, 8, 51);
  await playRandomOps(anvil.rpcUrl, w, { seed: 52, ops: 160, perBlock: 2 });
  chain = workloadChain(anvil.rpcUrl, w);
  head = BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber'));
  // The reference: the same history indexed with every index in place from the start.
  ref = await freshStore();
  await indexOnce({ db: ref.db, chains: [chain], log, batchSize: 50 });
  refIndexes = await indexState(ref.db);
}, 180_000);

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  for (const t of dbs) await t.drop();
  await anvil?.stop();
});

describe('secondary indexes deferred during a cold backfill', () => {
  it.each(['postgres', 'pglite'] as const)(
    'a fresh store (%s) drops them for the backfill, builds them before reporting ready',
    async (kind) => {
      expect([...refIndexes.keys()]).toEqual(NAMES); // all six exist after the migrations
      const t = await freshStore(kind);
      const indexers = await startIndexers({
        db: t.db,
        chains: [chain],
        log,
        batchSize: 3,
        maxBatchSize: 3,
        pollIntervalMs: 50,
        deferIndexesMinBlocks: 10,
      });
      try {
        await waitFor(async () => (await indexedBlock(t.db)) >= 0n);
        expect(await indexedBlock(t.db)).toBeLessThan(head); // mid-backfill
        expect((await indexState(t.db)).size).toBe(0);
        expect(await deferredRows(t.db)).toEqual(NAMES);
        const status = indexers.status()[0];
        expect(status).toMatchObject({ ready: false, deferred_indexes: NAMES.length });

        await waitFor(() => indexers.status()[0]?.ready === true);
        // Ready only once built: the definitions are the migrations' own.
        expect(defs(await indexState(t.db))).toEqual(defs(refIndexes));
        expect(await deferredRows(t.db)).toEqual([]);
        expect(indexers.status()[0]?.deferred_indexes).toBeUndefined();
      } finally {
        await indexers.stop();
      }
      expect(await storeDigest(t.db, 31337)).toEqual(await storeDigest(ref.db, 31337));
    },
    120_000,
  );

  it('kill -9 mid-backfill twice, restart: still deferred, then built; same store', async () => {
    const t = await freshStore();
    for (const fraction of [30n, 60n]) {
      const child = spawnIndexer(t.url as string);
      await waitFor(async () => (await indexedBlock(t.db)) >= (head * fraction) / 100n);
      child.kill('SIGKILL');
      await exited(child);
      expect(await indexedBlock(t.db)).toBeLessThan(head);
      // The deferral outlives the process: recorded in the store, indexes still absent.
      expect(await deferredRows(t.db)).toEqual(NAMES);
      expect((await indexState(t.db)).size).toBe(0);
    }
    const last = spawnIndexer(t.url as string);
    await waitFor(async () => (await deferredRows(t.db)).length === 0);
    last.kill('SIGTERM');
    await exited(last);
    expect(await indexedBlock(t.db)).toBe(head);
    expect(defs(await indexState(t.db))).toEqual(defs(refIndexes));
    expect(await storeDigest(t.db, 31337)).toEqual(await storeDigest(ref.db, 31337));
    expect((await checkGroundTruth(t.db, anvil.rpcUrl, 31337)).mismatches).toEqual([]);
  }, 180_000);

  it('reads answer the same without the deferred indexes and once built', async () => {
    const t = await freshStore();
    await indexOnce({ db: t.db, chains: [chain], log, batchSize: 5, deferIndexesMinBlocks: 10 });
    expect(await indexedBlock(t.db)).toBe(head);
    expect(defs(await indexState(t.db))).toEqual(defs(refIndexes));
    const expected = await answers(ref.db);
    expect(expected.filter((rows) => rows.length > 0).length).toBeGreaterThan(10);
    // The state a backfill leaves before the build (every row written, the indexes dropped and
    // recorded), on the whole history: the reads must not depend on them.
    await t.db.transaction(async (tx) => {
      for (const name of NAMES) {
        await tx.exec(`drop index ${name}`);
        await tx.query('insert into deferred_indexes (name) values ($1)', [name]);
      }
    });
    expect((await indexState(t.db)).size).toBe(0);
    expect(await answers(t.db)).toEqual(expected);

    // A restart at the head builds them (nothing left to index).
    await indexOnce({ db: t.db, chains: [chain], log, deferIndexesMinBlocks: 10 });
    expect(defs(await indexState(t.db))).toEqual(defs(refIndexes));
    expect(await answers(t.db)).toEqual(expected);
  }, 120_000);

  // Last: mines more blocks on the shared chain.
  it('a store holding data never drops or defers an index', async () => {
    const t = await freshStore();
    await indexOnce({ db: t.db, chains: [chain], log, batchSize: 50 });
    const before = await indexState(t.db);
    await playRandomOps(anvil.rpcUrl, w, { seed: 53, ops: 60, perBlock: 2 });
    const newHead = BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber'));
    expect(newHead - head).toBeGreaterThanOrEqual(10n);

    // Control: a fresh store with the same setting does drop and rebuild them (new OIDs).
    const cold = await freshStore();
    const coldBefore = await indexState(cold.db);
    await indexOnce({
      db: cold.db,
      chains: [chain],
      log,
      batchSize: 50,
      deferIndexesMinBlocks: 10,
    });
    const coldAfter = await indexState(cold.db);
    expect(defs(coldAfter)).toEqual(defs(coldBefore));
    for (const name of NAMES) expect(coldAfter.get(name)?.oid).not.toBe(coldBefore.get(name)?.oid);

    // The store with data, 10+ blocks behind: the same setting leaves every index in place.
    await indexOnce({ db: t.db, chains: [chain], log, batchSize: 3, deferIndexesMinBlocks: 10 });
    expect(await indexedBlock(t.db)).toBe(newHead);
    expect(await indexState(t.db)).toEqual(before);
    expect(await deferredRows(t.db)).toEqual([]);
  }, 180_000);
});
