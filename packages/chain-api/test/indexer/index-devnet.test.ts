import { type Database, migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilInstance, startAnvil } from '../../src/devnet/index.js';
import { indexOnce, startIndexers } from '../../src/ingest/index.js';
import { chainMigrations } from '../../src/store/index.js';
import { captureLog } from '../support/capture-log.js';
import { checkGroundTruth, storeDigest } from './ground-truth.js';
import {
  deployWorkload,
  playRandomOps,
  rpcCall,
  send,
  type Workload,
  waitReceipt,
} from './random-workload.js';
import { workloadChain } from './workload-chain.js';

const log = pino({ level: 'silent' });
let anvil: AnvilInstance;
let w: Workload;
const dbs: TestDatabase[] = [];

async function freshDb(kind: 'postgres' | 'pglite'): Promise<Database> {
  const t = await createTestDatabase(kind);
  dbs.push(t);
  await migrate(t.db, chainMigrations);
  return t.db;
}

beforeAll(async () => {
  anvil = await startAnvil();
  w = await deployWorkload(anvil.rpcUrl, 12, 11);
  await playRandomOps(anvil.rpcUrl, w, { seed: 12, ops: 220, perBlock: 4 });
});
afterAll(async () => {
  for (const t of dbs) await t.drop();
  await anvil?.stop();
});

describe('indexing a randomized workload', () => {
  let pgDigest: Record<string, string>;

  it('matches the node exactly on PostgreSQL (ground truth)', async () => {
    const db = await freshDb('postgres');
    const [stats] = await indexOnce({
      db,
      chains: [workloadChain(anvil.rpcUrl, w)],
      log,
      batchSize: 7,
    });
    expect(stats?.events).toBeGreaterThan(200);
    const ids = Array.from({ length: 40 }, (_, i) => BigInt(i + 1));
    const gt = await checkGroundTruth(db, anvil.rpcUrl, 31337, {
      erc721: [{ contract: w.erc721, ids }],
    });
    expect(gt.mismatches).toEqual([]);
    expect(gt.checked).toBeGreaterThan(100);
    pgDigest = await storeDigest(db, 31337);

    // Every wallet's ERC20s are there, metadata fetched through Multicall3.
    const { rows } = await db.query<{ symbol: string; decimals: number; status: string }>(
      `select symbol, decimals, status from tokens where standard = 'erc20' order by symbol`,
    );
    expect(rows).toEqual([
      { symbol: 'ALP', decimals: 18, status: 'ok' },
      { symbol: 'BTC', decimals: 8, status: 'ok' },
      { symbol: 'USD', decimals: 6, status: 'ok' },
      { symbol: 'WETH', decimals: 18, status: 'ok' },
    ]);
    const std = await db.query<{ address: string; standard: string }>(
      `select address, standard from tokens where address = any($1) order by standard`,
      [[w.erc721, w.erc1155]],
    );
    expect(std.rows.map((r) => r.standard)).toEqual(['erc1155', 'erc721']);
  });

  it('derives every activity type the workload produces, keyed uniquely per wallet', async () => {
    const db = dbs[0]?.db as Database;
    const { rows } = await db.query<{ type: string; asset_type: string | null }>(
      'select distinct type, asset_type from activity order by 1, 2',
    );
    const pairs = rows.map((r) => `${r.type}/${r.asset_type ?? '-'}`);
    for (const p of [
      'send/erc20',
      'receive/erc20',
      'mint/erc20',
      'burn/erc20',
      'transfer/erc20',
      'approve/erc20',
      'approve/erc721',
      'send/native',
      'receive/native',
      'mint/erc721',
      'send/erc721',
      'mint/erc1155',
      'call/-',
    ]) {
      expect(pairs).toContain(p);
    }
    // Reverted transactions produce a call row with status reverted and no movements.
    const reverted = await db.query<{ n: string }>(
      `select count(*) as n from activity a join transactions t
         on t.chain_id = a.chain_id and t.block_number = a.block_number and t.tx_index = a.tx_index
        where t.status = 0 and a.type <> 'call'`,
    );
    expect(reverted.rows[0]?.n).toBe('0');
    const calls = await db.query<{ n: string }>(
      `select count(*) as n from activity where type = 'call' and extra->>'status' = 'reverted'`,
    );
    expect(Number(calls.rows[0]?.n)).toBeGreaterThan(0);
  });

  it("keeps each ERC20 holder's first receipt and whether it sent, as its feed shows", async () => {
    const db = dbs[0]?.db as Database;
    // What the feed says per (wallet, token) vs what the writer kept in erc20_balances.
    const { rows } = await db.query<{ n: string; total: string }>(
      `with f as (
         select wallet, token_address as token,
                min(block_time) filter (where type in ('receive', 'mint', 'transfer')) as first_time,
                bool_or(type in ('send', 'transfer', 'burn')) as sent
           from activity where chain_id = 31337 and asset_type = 'erc20'
            and token_address is not null and type <> 'approve'
          group by 1, 2)
       select count(*) filter (where b.first_acquired is distinct from f.first_time
                                  or b.has_sent is distinct from f.sent) as n,
              count(*) as total
         from erc20_balances b join f using (wallet, token) where b.chain_id = 31337`,
    );
    expect(Number(rows[0]?.total)).toBeGreaterThan(10);
    expect(rows[0]?.n).toBe('0');
  });

  it('produces the identical store on PGlite', async () => {
    const db = await freshDb('pglite');
    await indexOnce({ db, chains: [workloadChain(anvil.rpcUrl, w)], log, batchSize: 25 });
    expect(await storeDigest(db, 31337)).toEqual(pgDigest);
  });

  it('follows the head with sub-second lag and reports status', async () => {
    const db = await freshDb('postgres');
    const indexers = await startIndexers({
      db,
      chains: [workloadChain(anvil.rpcUrl, w)],
      log,
      pollIntervalMs: 100,
    });
    try {
      await waitFor(() => indexers.status()[0]?.ready === true, 20_000);
      const [a, b] = w.wallets as [`0x${string}`, `0x${string}`];
      for (let i = 0; i < 3; i++) {
        const hash = await send(anvil.rpcUrl, a, b, '0x', 12345n);
        const head = BigInt((await waitReceipt(anvil.rpcUrl, hash)).blockNumber);
        const t0 = Date.now();
        await waitFor(() => BigInt(indexers.status()[0]?.indexed_block ?? -1) >= head, 5_000);
        expect(Date.now() - t0).toBeLessThan(1_000);
      }
      const s = indexers.status()[0];
      expect(s).toMatchObject({ chain_id: 31337, name: 'devnet', ready: true, lag_seconds: 0 });
      const gt = await checkGroundTruth(db, anvil.rpcUrl, 31337);
      expect(gt.mismatches).toEqual([]);
    } finally {
      await indexers.stop();
    }
  });

  it('seeds first-seen balances when indexing starts after genesis', async () => {
    const db = await freshDb('postgres');
    const head = BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber'));
    const startBlock = head / 2n; // wallets already hold tokens and NFTs from earlier blocks
    await indexOnce({
      db,
      chains: [workloadChain(anvil.rpcUrl, w, { startBlock })],
      log,
      batchSize: 9,
    });
    const gt = await checkGroundTruth(db, anvil.rpcUrl, 31337);
    expect(gt.mismatches).toEqual([]);
    const { rows } = await db.query<{ n: string }>('select count(*) as n from erc20_balances');
    expect(Number(rows[0]?.n)).toBeGreaterThan(10);
    const first = await db.query<{ min: string }>('select min(number) as min from blocks');
    expect(BigInt(first.rows[0]?.min ?? 0)).toBe(startBlock - 1n); // the anchor block
  });

  it('rejects a chain without an RPC URL with a clear error', async () => {
    const db = dbs[0]?.db as Database;
    await expect(
      startIndexers({ db, chains: [workloadChain('', w, { rpcUrl: undefined })], log }),
    ).rejects.toThrow('chain 31337 has no RPC URL');
  });

  it('refuses an RPC that serves another chain and stays not ready', async () => {
    const db = await freshDb('postgres');
    const captured = captureLog();
    const indexers = await startIndexers({
      db,
      chains: [workloadChain(anvil.rpcUrl, w, { chainId: 1, name: 'ethereum' })],
      log: captured.log,
    });
    // The indexer ran and refused the node twice (a retry did not let it through).
    const refusals = () =>
      captured.lines.filter(
        (l) => String(l.msg).startsWith('indexer step failed') && String(l.err).includes('31337'),
      ).length;
    await waitFor(() => refusals() >= 2, 10_000);
    expect(indexers.status()[0]).toMatchObject({ chain_id: 1, ready: false, indexed_block: null });
    await indexers.stop();
    const { rows } = await db.query('select * from activity');
    expect(rows).toEqual([]);
  });
});

async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('timed out waiting');
}
