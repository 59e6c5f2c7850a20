import type { Queryable } from '@sluice/db';
import { announceStoreChange, publishStoreChange } from '../changes/publish-store-change.js';
import { StoreChangeBuilder } from '../changes/store-change.js';
import type { WriteBatchInput } from './write-batch.js';

/** Columns naming the wallets and tokens whose answers a rollback's statement changes. */
interface Touched {
  wallets: readonly string[];
  tokens?: readonly string[];
}

/**
 * Tables restored from the undo log, with the JSON key fields that identify a snapshot and the
 * (wallet, token) columns whose answers a restore changes.
 */
const RESTORABLE = {
  erc20_balances: {
    match: `t.wallet = f.key->>'wallet' and t.token = f.key->>'token'`,
    touched: { wallets: ['wallet'], tokens: ['token'] },
  },
  native_balances: { match: `t.wallet = f.key->>'wallet'`, touched: { wallets: ['wallet'] } },
  nft_holdings: {
    match: `t.contract = f.key->>'contract' and t.token_id = (f.key->>'token_id')::numeric`,
    touched: { wallets: ['wallet'], tokens: ['contract'] },
  },
  pools: { match: `t.address = f.key->>'address'`, touched: undefined },
} as const satisfies Record<string, { match: string; touched: Touched | undefined }>;

/**
 * Records, before a batch in the unfinalized window changes them, the current rows of every key
 * it touches (`[]` when absent), plus a marker of the batch's first block. Runs inside the batch's
 * transaction.
 */
export async function snapshotForUndo(tx: Queryable, input: WriteBatchInput): Promise<void> {
  const { chainId: chain, batch } = input;
  const from = batch.fromBlock.toString();
  const insert = (tbl: string, keyExpr: string, where: string, unnest: string, params: unknown[]) =>
    tx.query(
      `insert into reorg_undo (chain_id, batch_from, tbl, key, prev)
       select $1, $2, '${tbl}', ${keyExpr},
              coalesce((select jsonb_agg(to_jsonb(snap.*)) from ${tbl} snap where snap.chain_id = $1 and ${where}), '[]'::jsonb)
         from ${unnest}`,
      [chain, from, ...params],
    );
  await tx.query(
    `insert into reorg_undo (chain_id, batch_from, tbl, key, prev) values ($1, $2, 'batch', $3, '[]')`,
    [chain, from, JSON.stringify({ to: batch.toBlock.toString() })],
  );
  const erc20 = [...batch.erc20Deltas.values()];
  if (erc20.length > 0) {
    await insert(
      'erc20_balances',
      `jsonb_build_object('wallet', k.w, 'token', k.t)`,
      'snap.wallet = k.w and snap.token = k.t',
      'unnest($3::text[], $4::text[]) as k(w, t)',
      [erc20.map((d) => d.wallet), erc20.map((d) => d.token)],
    );
  }
  const natives = [...input.nativeBalances.keys()];
  if (natives.length > 0) {
    await insert(
      'native_balances',
      `jsonb_build_object('wallet', k.w)`,
      'snap.wallet = k.w',
      'unnest($3::text[]) as k(w)',
      [natives],
    );
  }
  const nftKeys = new Map<string, [string, string]>();
  for (const m of batch.nft721.values()) {
    nftKeys.set(`${m.contract}|${m.tokenId}`, [m.contract, m.tokenId.toString()]);
  }
  for (const d of batch.nft1155.values()) {
    nftKeys.set(`${d.contract}|${d.tokenId}`, [d.contract, d.tokenId.toString()]);
  }
  if (nftKeys.size > 0) {
    const keys = [...nftKeys.values()];
    await insert(
      'nft_holdings',
      `jsonb_build_object('contract', k.c, 'token_id', k.id::text)`,
      'snap.contract = k.c and snap.token_id = k.id',
      'unnest($3::text[], $4::numeric[]) as k(c, id)',
      [keys.map((k) => k[0]), keys.map((k) => k[1])],
    );
  }
  const pools = input.pools.changed.map((p) => p.address);
  if (pools.length > 0) {
    await insert(
      'pools',
      `jsonb_build_object('address', k.a)`,
      'snap.address = k.a',
      'unnest($3::text[]) as k(a)',
      [pools],
    );
  }
}

/**
 * Snapshots rows a batch changes besides its own deltas (balances re-read from the chain by the
 * reconciler: holders of non-conserving tokens, catch-up sweeps), keyed like `snapshotForUndo`
 * so a rollback restores them too. Runs inside the batch's transaction, before the update.
 */
export async function snapshotExtraRows(
  tx: Queryable,
  chain: number,
  batchFrom: bigint,
  keys: {
    erc20: readonly (readonly [string, string])[];
    nft: readonly (readonly [string, string])[];
  },
): Promise<void> {
  const from = batchFrom.toString();
  if (keys.erc20.length > 0) {
    await tx.query(
      `insert into reorg_undo (chain_id, batch_from, tbl, key, prev)
       select $1, $2, 'erc20_balances', jsonb_build_object('wallet', k.w, 'token', k.t),
              coalesce((select jsonb_agg(to_jsonb(snap.*)) from erc20_balances snap
                         where snap.chain_id = $1 and snap.wallet = k.w and snap.token = k.t), '[]'::jsonb)
         from unnest($3::text[], $4::text[]) as k(w, t)`,
      [chain, from, keys.erc20.map((k) => k[0]), keys.erc20.map((k) => k[1])],
    );
  }
  if (keys.nft.length > 0) {
    await tx.query(
      `insert into reorg_undo (chain_id, batch_from, tbl, key, prev)
       select $1, $2, 'nft_holdings', jsonb_build_object('contract', k.c, 'token_id', k.id::text),
              coalesce((select jsonb_agg(to_jsonb(snap.*)) from nft_holdings snap
                         where snap.chain_id = $1 and snap.contract = k.c and snap.token_id = k.id), '[]'::jsonb)
         from unnest($3::text[], $4::numeric[]) as k(c, id)`,
      [chain, from, keys.nft.map((k) => k[0]), keys.nft.map((k) => k[1])],
    );
  }
}

/**
 * Derived tables whose rows above a block are simply deleted on rollback, with the (wallet, token)
 * columns whose answers that changes (NFT sales notify through their own trigger).
 */
const BY_BLOCK = [
  ['activity', 'block_number', { wallets: ['wallet'], tokens: ['token_address'] }],
  ['transactions', 'block_number', { wallets: ['from_address', 'to_address'] }],
  ['logs', 'block_number', undefined],
  ['pool_states', 'block_number', undefined],
  ['nft_sales', 'block_number', undefined],
  ['blocks', 'number', undefined],
] as const;

/**
 * Rolls the store of `chain` back so that nothing above the common ancestor `ancestor` remains:
 * restores snapshotted balances/holdings/pools, deletes rows of later blocks, moves the checkpoint.
 * Batches are atomic, so the rollback goes to the start of the batch containing `ancestor + 1`;
 * returns the block the store now ends at. Runs inside the caller's transaction.
 *
 * @example
 * const at = await db.transaction((tx) => rollbackTo(tx, 31337, 120n));
 */
export async function rollbackTo(
  tx: Queryable,
  chain: number,
  ancestor: bigint,
): Promise<{ target: bigint; hash: string; restorable: boolean }> {
  // The batch that wrote ancestor+1 (batches are atomic: roll back to its start).
  const next = (ancestor + 1n).toString();
  const { rows } = await tx.query<{ from: string }>(
    `select batch_from as from from reorg_undo
      where chain_id = $1 and tbl = 'batch' and batch_from <= $2 and (key->>'to')::bigint >= $2
      order by batch_from limit 1`,
    [chain, next],
  );
  const batchFrom = rows[0]?.from;
  const target = batchFrom !== undefined ? BigInt(batchFrom) - 1n : ancestor;
  const restorable = batchFrom !== undefined;
  const t = target.toString();
  // Every wallet the rollback undoes is announced (delivered at commit): its cached answers go.
  await announceStoreChange(tx);
  const change = new StoreChangeBuilder();
  // Distinct rows only: a deep rollback deletes many rows of few wallets.
  const touched = async (sql: string, columns: Touched | undefined) => {
    if (!columns) return void (await tx.query(sql, [chain, t]));
    const wallets = columns.wallets;
    const tokens = columns.tokens ?? [];
    const { rows } = await tx.query<Record<string, string | null>>(
      `with d as (${sql} returning ${[...wallets, ...tokens].join(', ')}) select distinct * from d`,
      [chain, t],
    );
    for (const r of rows) {
      for (const c of wallets) change.wallet(chain, r[c]);
      for (const c of tokens) change.token(chain, r[c]);
    }
  };

  for (const [tbl, spec] of Object.entries(RESTORABLE)) {
    const firsts = `select distinct on (key) key, prev from reorg_undo
                     where chain_id = $1 and tbl = '${tbl}' and batch_from > $2 order by key, seq`;
    await touched(
      `delete from ${tbl} t using (${firsts}) f where t.chain_id = $1 and ${spec.match}`,
      spec.touched,
    );
    await touched(
      `insert into ${tbl} select r.* from (${firsts}) f, jsonb_populate_recordset(null::${tbl}, f.prev) r`,
      spec.touched,
    );
  }
  for (const [tbl, col, columns] of BY_BLOCK) {
    await touched(`delete from ${tbl} where chain_id = $1 and ${col} > $2`, columns);
  }
  await publishStoreChange(tx, change);
  await tx.query('delete from reorg_undo where chain_id = $1 and batch_from > $2', [chain, t]);

  const { rows: b } = await tx.query<{ hash: string; timestamp: Date | string }>(
    'select hash, timestamp from blocks where chain_id = $1 and number = $2',
    [chain, t],
  );
  const hash = b[0]?.hash ?? '0x';
  await tx.query(
    `update checkpoints set indexed_block = $2, indexed_hash = $3, indexed_time = $4,
            backfill_done = false, updated_at = now(),
            reconciled_block = case when reconciled_block is null then null
                                    else least(reconciled_block, $2::int8) end
      where chain_id = $1`,
    [chain, t, hash, b[0] ? new Date(b[0].timestamp).toISOString() : null],
  );
  return { target, hash, restorable };
}
