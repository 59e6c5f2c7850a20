import type { Queryable } from '@sluice/db';
import type { DerivedBatch, PoolChanges, TokenMetadata } from '../derive/index.js';
import { InternalError } from '../errors/index.js';
import { batchChange } from './batch-change.js';
import { writeBatchRows } from './batch-rows.js';
import type { StoreLogs } from './chain-data.js';
import { announceStoreChange, publishStoreChange } from './changes/publish-store-change.js';
import { advanceCheckpoint } from './checkpoints.js';
import { recordUndoBatch } from './undo/record-undo.js';

export interface WriteBatchInput {
  chainId: number;
  batch: DerivedBatch;
  /** The checkpoint this batch continues from (compare-and-set). */
  expected: { block: bigint; hash: string };
  /** Native balances of `batch.nativeTouched` at `batch.toBlock`. */
  nativeBalances: ReadonlyMap<string, bigint>;
  /** Metadata of token contracts first seen in this batch. */
  newTokens: readonly TokenMetadata[];
  pools: PoolChanges;
  /** Record undo snapshots (the batch reaches into the unfinalized window). */
  undo: boolean;
  /** Drop undo entries of batches that started below this block (finalized). */
  pruneUndoBelow: bigint;
  headBlock: bigint;
  backfillDone: boolean;
  storeLogs: StoreLogs;
}

/**
 * Writes one derived batch and moves the checkpoint, inside the caller's transaction. The
 * checkpoint update is a compare-and-set on the previous block and hash, so two writers can never
 * both apply a batch.
 *
 * @example
 * await db.transaction((tx) => writeBatch(tx, input));
 */
export async function writeBatch(tx: Queryable, input: WriteBatchInput): Promise<void> {
  const { chainId: chain, batch } = input;
  const last = batch.blocks[batch.blocks.length - 1];
  if (!last) throw new InternalError('empty batch');

  await advanceCheckpoint(
    tx,
    chain,
    { block: last.number, hash: last.hash, time: last.time },
    input.expected,
    { headBlock: input.headBlock, backfillDone: input.backfillDone },
  );
  // The batch names the wallets and tokens it touched (published last, delivered at commit), so
  // cached answers of everybody else stay valid.
  await announceStoreChange(tx);
  const change = batchChange(chain, batch, input);

  const undo = input.undo ? { chainId: chain, batchFrom: batch.fromBlock } : null;
  if (undo) await recordUndoBatch(tx, undo, batch.toBlock);
  await writeBatchRows(tx, input, { undo, change });
  await publishStoreChange(tx, change);
}
