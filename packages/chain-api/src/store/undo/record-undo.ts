import type { Queryable } from '@sluice/db';
import { UNDOABLE_TABLES, type UndoableTableName } from './reorg-tables.js';

/** Schema of `reorg_undo` (part of the core migration). */
export const undoLogSchema = /* sql */ `
-- Undo log of the unfinalized window: the rows a batch above the finalized height is about to change,
-- as they were before it (prev = json array of rows, [] when absent). A rollback restores, per key,
-- the earliest snapshot taken after the rollback target. Pruned once batch_from is finalized.
create table reorg_undo (
  seq         bigserial primary key,
  chain_id    integer not null,
  batch_from  bigint  not null,
  tbl         text    not null,
  key         jsonb   not null,
  prev        jsonb   not null
);
create index reorg_undo_chain_idx on reorg_undo (chain_id, batch_from);
`;

/**
 * The batch a write belongs to when it reaches into the unfinalized window: undo entries are
 * keyed by the batch's first block. Writers of undoable tables take `UndoScope | null` (null:
 * the write is final, nothing to undo) so none can skip the question.
 */
export interface UndoScope {
  chainId: number;
  batchFrom: bigint;
}

/**
 * The one place that knows the undo log's key format: a JSON object of the table's key columns
 * (values as text), matched back by `undoKeyMatch` when a rollback restores.
 */
function keyObject(table: UndoableTableName): string {
  const fields = UNDOABLE_TABLES[table].key.map(([column]) => `'${column}', k.${column}::text`);
  return `jsonb_build_object(${fields.join(', ')})`;
}

/** SQL matching rows `t` of `table` to undo entries `f` (the rollback's side of `keyObject`). */
export function undoKeyMatch(table: UndoableTableName): string {
  return UNDOABLE_TABLES[table].key
    .map(([column, type]) => `t.${column} = (f.key->>'${column}')::${type}`)
    .join(' and ');
}

/**
 * Records, before a write in the unfinalized window changes them, the current rows of `table`
 * under each key (`[]` when absent). `keys` hold the key columns' values in the table's key
 * order (see UNDOABLE_TABLES). Runs inside the writer's transaction, before its write.
 *
 * @example
 * await recordUndo(tx, { chainId: 1, batchFrom: 100n }, 'native_balances', [['0xabc']]);
 */
export async function recordUndo(
  tx: Queryable,
  scope: UndoScope | null,
  table: UndoableTableName,
  keys: readonly (readonly string[])[],
): Promise<void> {
  if (!scope || keys.length === 0) return;
  const columns = UNDOABLE_TABLES[table].key;
  const unnest = columns.map(([, type], i) => `$${i + 3}::${type}[]`).join(', ');
  const names = columns.map(([column]) => column).join(', ');
  const match = columns.map(([column]) => `snap.${column} = k.${column}`).join(' and ');
  await tx.query(
    `insert into reorg_undo (chain_id, batch_from, tbl, key, prev)
     select $1, $2, '${table}', ${keyObject(table)},
            coalesce((select jsonb_agg(to_jsonb(snap.*)) from ${table} snap
                       where snap.chain_id = $1 and ${match}), '[]'::jsonb)
       from unnest(${unnest}) as k(${names})`,
    [
      scope.chainId,
      scope.batchFrom.toString(),
      ...columns.map((_, i) => keys.map((k) => k[i] ?? null)),
    ],
  );
}

/**
 * Marks the batch `[scope.batchFrom, to]` in the undo log: a rollback to a block inside it goes
 * back to the batch's start (batches are atomic).
 */
export async function recordUndoBatch(tx: Queryable, scope: UndoScope, to: bigint): Promise<void> {
  await tx.query(
    `insert into reorg_undo (chain_id, batch_from, tbl, key, prev) values ($1, $2, 'batch', $3, '[]')`,
    [scope.chainId, scope.batchFrom.toString(), JSON.stringify({ to: to.toString() })],
  );
}

/** Drops the undo entries of batches that started below `below` (finalized). */
export async function pruneUndo(tx: Queryable, chainId: number, below: bigint): Promise<void> {
  await tx.query('delete from reorg_undo where chain_id = $1 and batch_from < $2', [
    chainId,
    below.toString(),
  ]);
}

/** The first block of the oldest batch the undo log still holds, or null when it is empty. */
export async function undoWindowStart(db: Queryable, chainId: number): Promise<bigint | null> {
  const { rows } = await db.query<{ first: string | null }>(
    `select min(batch_from)::text as first from reorg_undo where chain_id = $1 and tbl = 'batch'`,
    [chainId],
  );
  return rows[0]?.first ? BigInt(rows[0].first) : null;
}
