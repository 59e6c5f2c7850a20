import type { Queryable } from '@sluice/db';
import type { WriteBatchInput } from './write-batch.js';

/** Tables restored from the undo log, with the JSON key fields that identify a snapshot. */
const RESTORABLE = {
  erc20_balances: { match: `t.wallet = f.key->>'wallet' and t.token = f.key->>'token'` },
  native_balances: { match: `t.wallet = f.key->>'wallet'` },
  nft_holdings: {
    match: `t.contract = f.key->>'contract' and t.token_id = (f.key->>'token_id')::numeric`,
  },
  pools: { match: `t.address = f.key->>'address'` },
} as const;

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

/** Derived tables whose rows above a block are simply deleted on rollback. */
const BY_BLOCK = [
  ['activity', 'block_number'],
  ['transactions', 'block_number'],
  ['logs', 'block_number'],
  ['pool_states', 'block_number'],
  ['nft_sales', 'block_number'],
  ['blocks', 'number'],
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

  for (const [tbl, spec] of Object.entries(RESTORABLE)) {
    const firsts = `select distinct on (key) key, prev from reorg_undo
                     where chain_id = $1 and tbl = '${tbl}' and batch_from > $2 order by key, seq`;
    await tx.query(
      `delete from ${tbl} t using (${firsts}) f where t.chain_id = $1 and ${spec.match}`,
      [chain, t],
    );
    await tx.query(
      `insert into ${tbl} select r.* from (${firsts}) f, jsonb_populate_recordset(null::${tbl}, f.prev) r`,
      [chain, t],
    );
  }
  for (const [tbl, col] of BY_BLOCK) {
    await tx.query(`delete from ${tbl} where chain_id = $1 and ${col} > $2`, [chain, t]);
  }
  await tx.query('delete from reorg_undo where chain_id = $1 and batch_from > $2', [chain, t]);

  const { rows: b } = await tx.query<{ hash: string; timestamp: Date | string }>(
    'select hash, timestamp from blocks where chain_id = $1 and number = $2',
    [chain, t],
  );
  const hash = b[0]?.hash ?? '0x';
  await tx.query(
    `update checkpoints set indexed_block = $2, indexed_hash = $3, indexed_time = $4,
            backfill_done = false, updated_at = now()
      where chain_id = $1`,
    [chain, t, hash, b[0] ? new Date(b[0].timestamp).toISOString() : null],
  );
  return { target, hash, restorable };
}
