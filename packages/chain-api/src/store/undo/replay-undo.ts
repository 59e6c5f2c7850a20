import type { Queryable } from '@sluice/db';
import type { StoreChangeBuilder } from '../changes/store-change-builder.js';
import { undoKeyMatch } from './record-undo.js';
import { DELETED_BY_BLOCK, type Touched, UNDOABLE_TABLES } from './reorg-tables.js';

/**
 * The first block of the batch that wrote `block` (batches are atomic: a rollback goes back to
 * its start), or undefined when the undo log holds no such batch (written as final).
 */
export async function undoBatchStart(
  tx: Queryable,
  chainId: number,
  block: bigint,
): Promise<bigint | undefined> {
  const { rows } = await tx.query<{ from: string }>(
    `select batch_from as from from reorg_undo
      where chain_id = $1 and tbl = 'batch' and batch_from <= $2 and (key->>'to')::bigint >= $2
      order by batch_from limit 1`,
    [chainId, block.toString()],
  );
  const from = rows[0]?.from;
  return from === undefined ? undefined : BigInt(from);
}

/**
 * Puts the rows of every undoable table back as they were at `target` (per key, the earliest
 * snapshot taken after it), deletes the rows of later blocks from the tables that hold rows of
 * one block, then drops the replayed undo entries. The wallets and tokens whose answers that
 * changes are added to `change`. Runs inside the rollback's transaction.
 */
export async function replayUndo(
  tx: Queryable,
  chainId: number,
  target: bigint,
  change: StoreChangeBuilder,
): Promise<void> {
  const t = target.toString();
  // Distinct rows only: a deep rollback deletes many rows of few wallets.
  const run = async (sql: string, columns: Touched | undefined) => {
    if (!columns) return void (await tx.query(sql, [chainId, t]));
    const wallets = columns.wallets;
    const tokens = columns.tokens ?? [];
    const { rows } = await tx.query<Record<string, string | null>>(
      `with d as (${sql} returning ${[...wallets, ...tokens].join(', ')}) select distinct * from d`,
      [chainId, t],
    );
    for (const r of rows) {
      for (const c of wallets) change.wallet(chainId, r[c]);
      for (const c of tokens) change.token(chainId, r[c]);
    }
  };

  for (const [tbl, spec] of Object.entries(UNDOABLE_TABLES)) {
    const firsts = `select distinct on (key) key, prev from reorg_undo
                     where chain_id = $1 and tbl = '${tbl}' and batch_from > $2 order by key, seq`;
    const match = undoKeyMatch(tbl as keyof typeof UNDOABLE_TABLES);
    await run(
      `delete from ${tbl} t using (${firsts}) f where t.chain_id = $1 and ${match}`,
      spec.touched,
    );
    await run(
      `insert into ${tbl} select r.* from (${firsts}) f, jsonb_populate_recordset(null::${tbl}, f.prev) r`,
      spec.touched,
    );
  }
  for (const { table, block, touched } of DELETED_BY_BLOCK) {
    await run(`delete from ${table} where chain_id = $1 and ${block} > $2`, touched);
  }
}

/** Drops the undo entries of batches above `target` (after `replayUndo` used them). */
export async function dropUndoAbove(tx: Queryable, chainId: number, target: bigint): Promise<void> {
  await tx.query('delete from reorg_undo where chain_id = $1 and batch_from > $2', [
    chainId,
    target.toString(),
  ]);
}
