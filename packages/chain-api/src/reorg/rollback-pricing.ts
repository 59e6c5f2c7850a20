import type { Queryable } from '@sluice/db';
import {
  dropPricesAbove,
  pricingTablesPresent,
  rewindPricingCursor,
} from '../store/pricing/rewind-pricing.js';

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
  // A store migrated without pricingMigrations (indexer-only tests, tools) has nothing to undo.
  if (!(await pricingTablesPresent(tx))) return;
  // The cursor row first: the worker and the rollback always take locks in one order.
  await rewindPricingCursor(tx, chainId, block);
  await dropPricesAbove(tx, chainId, block);
}
