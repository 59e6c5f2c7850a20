import { type Database, migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import pino from 'pino';
import { encodeFunctionData, type Hex, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectNftHolders } from '../../src/api/queries/token-holders-query.js';
import { selectTokenInfo } from '../../src/api/queries/token-info-query.js';
import { type AnvilInstance, startAnvil } from '../../src/devnet/index.js';
import { indexOnce } from '../../src/ingest/index.js';
import { storeMigrations } from '../../src/store/migrations.js';
import {
  deployWorkload,
  playRandomOps,
  rpcCall,
  send,
  type Workload,
} from '../indexer/random-workload.js';
import { workloadChain } from '../indexer/workload-chain.js';

/**
 * `token_supply` and `nft_holder_totals` (kept by triggers, src/store/token-totals.ts) always
 * equal the sums they replace: after indexing a random workload, after a reorg deeper than the
 * batch size (the undo replay restores balances and holdings), and in a fresh index of the
 * final chain. token-info and token-holders answer from them.
 */
const log = pino({ level: 'silent' });
const erc20 = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);
let anvil: AnvilInstance;
let w: Workload;
const dbs: TestDatabase[] = [];

async function freshDb(): Promise<Database> {
  const t = await createTestDatabase('postgres');
  dbs.push(t);
  await migrate(t.db, storeMigrations);
  return t.db;
}

const chain = () => workloadChain(anvil.rpcUrl, w, { finalityDepth: 64 });

/** Totals as stored, and as summed from the rows (only non-zero entries). */
async function totals(db: Database) {
  const stored = await db.query<{ k: string; v: string }>(
    `select 's ' || token || ' ' || supply || ' ' || holders as k, '' as v from token_supply
      where supply <> 0 or holders <> 0
     union all
     select 'n ' || contract || ' ' || wallet || ' ' || amount, '' from nft_holder_totals where amount <> 0
     order by 1`,
  );
  const summed = await db.query<{ k: string; v: string }>(
    `select 's ' || token || ' ' || sum(amount) || ' ' || count(*) as k, '' as v from erc20_balances
      where amount > 0 group by token
     union all
     select 'n ' || contract || ' ' || wallet || ' ' || sum(balance), '' from nft_holdings
      where balance > 0 group by contract, wallet
     order by 1`,
  );
  return { stored: stored.rows.map((r) => r.k), summed: summed.rows.map((r) => r.k) };
}

async function mineTransfers(blocks: number, seed: number): Promise<void> {
  await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [false]);
  for (let i = 0; i < blocks; i++) {
    const a = w.wallets[(seed + i) % w.wallets.length] as Hex;
    const b = w.wallets[(seed * 7 + i * 3 + 1) % w.wallets.length] as Hex;
    await send(
      anvil.rpcUrl,
      a,
      w.erc20[(seed + i) % 3] as Hex,
      encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [b, BigInt(1000 + i)] }),
    );
    await rpcCall(anvil.rpcUrl, 'evm_mine');
  }
  await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [true]);
}

beforeAll(async () => {
  anvil = await startAnvil();
  w = await deployWorkload(anvil.rpcUrl, 8, 31);
  await playRandomOps(anvil.rpcUrl, w, { seed: 32, ops: 80, perBlock: 4 });
  await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [true]);
}, 300_000);

afterAll(async () => {
  for (const t of dbs) await t.drop();
  await anvil?.stop();
});

describe('token totals', () => {
  it('equal the sums they replace, through a reorg, and serve token-info and token-holders', async () => {
    const db = await freshDb();
    await indexOnce({ db, chains: [chain()], log, batchSize: 3 });
    let t = await totals(db);
    expect(t.stored.length).toBeGreaterThan(3);
    expect(t.stored.some((k) => k.startsWith('n '))).toBe(true);
    expect(t.stored).toEqual(t.summed);

    const snap = await rpcCall<string>(anvil.rpcUrl, 'evm_snapshot');
    await playRandomOps(anvil.rpcUrl, w, { seed: 33, ops: 30, perBlock: 2 });
    await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [true]);
    await indexOnce({ db, chains: [chain()], log, batchSize: 3 });
    const beforeReorg = await totals(db);
    expect(beforeReorg.stored).toEqual(beforeReorg.summed);
    await rpcCall(anvil.rpcUrl, 'evm_revert', [snap]);
    await mineTransfers(20, 9); // a longer branch from the same parent
    await indexOnce({ db, chains: [chain()], log, batchSize: 3 });
    t = await totals(db);
    expect(t.stored).toEqual(t.summed);
    expect(t.stored).not.toEqual(beforeReorg.stored);
    const fresh = await freshDb();
    await indexOnce({ db: fresh, chains: [chain()], log, batchSize: 4 });
    expect((await totals(fresh)).stored).toEqual(t.stored);

    // The endpoints' queries read them.
    const token = w.erc20[0] as string;
    const { rows } = await db.query<{ s: string }>(
      'select coalesce(sum(amount), 0)::text as s from erc20_balances where token = $1 and amount > 0',
      [token],
    );
    expect((await selectTokenInfo(db, 31337, token, true))?.total_supply).toBe(rows[0]?.s);
    const holders = await selectNftHolders(db, { chainId: 31337, token: w.erc721, limit: 3 });
    const { rows: ranked } = await db.query<{ wallet: string; n: string }>(
      `select wallet, sum(balance)::text as n from nft_holdings where contract = $1 and balance > 0
        group by wallet order by sum(balance) desc, wallet limit 3`,
      [w.erc721],
    );
    expect(holders.map((h) => [h.wallet, h.balance])).toEqual(ranked.map((r) => [r.wallet, r.n]));
    // Keyset paging continues from the last holder.
    const last = holders.at(-1)!;
    const next = await selectNftHolders(db, {
      chainId: 31337,
      token: w.erc721,
      limit: 50,
      after: [last.balance, last.wallet],
    });
    expect(next.some((h) => holders.some((p) => p.wallet === h.wallet))).toBe(false);
  }, 300_000);
});
