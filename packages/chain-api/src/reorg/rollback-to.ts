import type { Queryable } from '@sluice/db';
import { announceStoreChange, publishStoreChange } from '../store/changes/publish-store-change.js';
import { StoreChangeBuilder } from '../store/changes/store-change-builder.js';
import { rewindCheckpoint } from '../store/checkpoints.js';
import { rollbackWebhookDeliveries } from '../store/subscriptions/rollback-deliveries.js';
import { dropUndoAbove, replayUndo, undoBatchStart } from '../store/undo/replay-undo.js';

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
  const batchFrom = await undoBatchStart(tx, chain, ancestor + 1n);
  const target = batchFrom !== undefined ? batchFrom - 1n : ancestor;
  // Every wallet the rollback undoes is announced (delivered at commit): its cached answers go.
  await announceStoreChange(tx);
  const change = new StoreChangeBuilder();
  await replayUndo(tx, chain, target, change);
  await publishStoreChange(tx, change);
  await dropUndoAbove(tx, chain, target);
  // Receivers that saw a replaced block hear of it before the new branch's events.
  await rollbackWebhookDeliveries(tx, chain, target);
  const hash = await rewindCheckpoint(tx, chain, target);
  return { target, hash, restorable: batchFrom !== undefined };
}
