import type { Queryable } from '@sluice/db';

/**
 * Undoes pricing above `block` on `chainId`; call it inside the indexer's reorg rollback
 * transaction. Price points above the block are deleted, current prices written above it are
 * marked for recomputation, and the worker's cursor is rewound (its epoch bump makes a worker
 * transaction that raced with the rollback abort instead of committing stale prices).
 * The cursor row is locked first so the worker and the rollback always take locks in one order.
 * A no-op when the pricing tables do not exist.
 *
 * @example
 * await db.transaction(async (tx) => {
 *   // ... indexer deletes its rows above the common ancestor ...
 *   await rollbackPricing(tx, 1, ancestor);
 * });
 */
export async function rollbackPricing(
  tx: Queryable,
  chainId: number,
  block: bigint,
): Promise<void> {
  const b = block.toString();
  // A store migrated without pricingMigrations (indexer-only tests, tools) has nothing to undo.
  const { rows } = await tx.query<{ present: boolean }>(
    `select to_regclass('pricing_cursors') is not null as present`,
  );
  if (!rows[0]?.present) return;
  await tx.query(
    `update pricing_cursors set last_block = least(last_block, $2::bigint), epoch = epoch + 1,
       compacted_block = least(compacted_block, $2::bigint),
       updated_at = now() where chain_id = $1`,
    [chainId, b],
  );
  await tx.query('delete from price_history where chain_id = $1 and block_number > $2::bigint', [
    chainId,
    b,
  ]);
  await tx.query(
    'update token_prices set dirty = true where chain_id = $1 and updated_block > $2::bigint',
    [chainId, b],
  );
}
