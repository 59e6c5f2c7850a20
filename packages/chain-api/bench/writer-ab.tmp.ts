import { migrate } from '@sluice/db';
import { createTestDatabase } from '@sluice/db/testing';
import { prng } from '../src/devnet/prng.js';
import { storeMigrations } from '../src/store/migrations.js';
import { addr } from '../test/support/seed-store.js';
import { syntheticBatch, type SyntheticTip } from '../test/support/synthetic-batch.js';
import { withCopyTransaction, writeBatch } from '../src/store/index.js';
import { seedBenchStore } from './seed-bench-store.js';
import { setCheckpoint } from '../test/support/seed-store.js';

const t = await createTestDatabase('postgres');
const stmt = new Map<string, number>();
const db = t.db;
try {
  await migrate(db, storeMigrations);
  await seedBenchStore(db, Number(process.env.LIGHT ?? 10_000));
  await setCheckpoint(db, 1, { indexedBlock: 5_000_000, backfillDone: true });
  const tokens = Array.from({ length: 200 }, (_, i) => addr('bench-token', i));
  const funder = addr('live-funder');
  await db.query(
    `insert into erc20_balances (wallet, chain_id, token, amount, updated_block)
     select $1, 1, t, 1e40, 0 from unnest($2::text[]) as t on conflict do nothing`,
    [funder, tokens],
  );
  await db.query('analyze');
  const random = prng(17);
  const { rows } = await db.query<{ indexed_hash: string }>('select indexed_hash from checkpoints where chain_id = 1');
  let tip: SyntheticTip = { block: 5_000_000n, hash: rows[0]!.indexed_hash };
  const block = async () => {
    const picked = new Set<number>();
    while (picked.size < 1000) picked.add(Math.floor(random() * 100_000));
    const transfers = [...picked].map((i) => ({
      from: funder,
      to: i < 10_000 ? addr('light', i) : addr('live-extra', i),
      token: tokens[Math.floor(random() * tokens.length)]!,
      value: BigInt(1 + Math.floor(random() * 1000)),
    }));
    const s = performance.now();
    const { batch, nativeBalances, hash } = syntheticBatch({ chainId: 1, tip, time: new Date(), transfers, salt: `ab${tip.block}` });
    await withCopyTransaction(db, (tx0) => {
      const tx = new Proxy(tx0, { get(target, prop) {
        const v = (target as any)[prop];
        if (typeof v !== 'function') return v;
        return async (...args: any[]) => {
          const t0 = performance.now();
          try { return await v.apply(target, args); } finally {
            const key = prop === 'copyRows' ? `copy ${args[0]}` : String(args[0]).replace(/\s+/g, ' ').slice(0, 70);
            stmt.set(key, (stmt.get(key) ?? 0) + performance.now() - t0);
          }
        };
      } });
      return writeBatch(tx, { chainId: 1, batch, expected: tip, nativeBalances, newTokens: [], pools: { created: [], changed: [], states: [] }, undo: false, pruneUndoBelow: 0n, headBlock: batch.toBlock, backfillDone: true, storeLogs: 'none' });
    });
    tip = { block: batch.toBlock, hash };
    return performance.now() - s;
  };
  const variants: Record<string, [string, string]> = {
    base: ['select 1', 'select 1'],
    notrig: ['alter table erc20_balances disable trigger user', 'alter table erc20_balances enable trigger user'],
    noidx: ['drop index activity_wallet_token_idx', 'create index activity_wallet_token_idx on activity (wallet, token_address, block_time desc) where token_address is not null'],
  };
  const times: Record<string, number[]> = { base: [], notrig: [], noidx: [] };
  for (let i = 0; i < 20; i++) await block(); // warm
  for (let round = 0; round < Number(process.env.ROUNDS ?? 6); round++) {
    for (const [name, [on, off]] of Object.entries(variants)) {
      await db.query(on);
      for (let i = 0; i < 10; i++) times[name]!.push(await block());
      await db.query(off);
    }
  }
  for (const [k, v] of [...stmt].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log((v / (Number(process.env.ROUNDS ?? 6) * 30 + 20)).toFixed(1), 'ms/block', k);
  for (const [name, list] of Object.entries(times)) {
    list.sort((a, b) => a - b);
    console.log(name, 'p50', list[Math.floor(list.length / 2)]!.toFixed(0), 'p90', list[Math.floor(list.length * 0.9)]!.toFixed(0));
  }
} finally {
  await t.drop();
}
