import type { Database } from '@sluice/db';
import type { ChainConfig } from '../chains/index.js';
import { applyPoolEvents, type PoolChanges, type PoolState } from '../derive/index.js';
import { applyAbsolutes, type ReconcilePlan, type Reconciler } from '../reconcile/index.js';
import { type StoreLogs, withCopyTransaction, writeBatch } from '../store/index.js';
import { queueWebhookDeliveries, watchBatch } from '../store/subscriptions/queue-deliveries.js';
import type { Checkpoint } from './indexer-types.js';
import type { LeaderLock } from './leader-lock.js';
import type { Prepared } from './prepare-batch.js';
import { tokenLogos } from './token-logos.js';
import { webhooksIn } from './webhook-tables.js';

/** The indexer's parts a batch is written with. */
export interface CommitDeps {
  db: Database;
  /** The finality depth, and what webhook items show of the chain (its token logos too). */
  chain: ChainConfig;
  lock: LeaderLock;
  reconciler: Reconciler;
  maxBatchSize: number;
  storeLogs: StoreLogs;
}

/** What a committed batch changed, for the indexer's memory. */
export interface Committed {
  plan: ReconcilePlan;
  pools: PoolChanges;
  /** The new checkpoint. */
  checkpoint: Checkpoint;
  /** The batch reached the head seen when it was written. */
  backfillDone: boolean;
}

/**
 * Writes a prepared batch and its reconciled balances in one transaction that moves the
 * checkpoint from `cp` (compare-and-set) under the leader lock. Undefined for an empty batch.
 *
 * @example
 * const committed = await commitBatch(deps, prepared, { cp, head, pools, caughtUp });
 */
export async function commitBatch(
  deps: CommitDeps,
  prepared: Prepared,
  at: { cp: Checkpoint; head: bigint; pools: ReadonlyMap<string, PoolState>; caughtUp: boolean },
): Promise<Committed | undefined> {
  const { batch } = prepared;
  const { cp, head } = at;
  const finalized = head - BigInt(deps.chain.finalityDepth);
  const pools = applyPoolEvents(batch.poolEvents, at.pools);
  const last = batch.blocks[batch.blocks.length - 1];
  if (!last) return undefined;
  const backfillDone = batch.toBlock >= head;
  const plan = await deps.reconciler.plan(batch, prepared.reads, cp.block, head);
  applyAbsolutes(batch, plan);
  const webhooks = await webhooksIn(deps.db);
  // Items of watched wallets whose rows the mode drops come from the unfiltered batch.
  const { unstored } = prepared;
  const seen = unstored?.batch ?? batch;
  await withCopyTransaction(deps.db, async (tx) => {
    // Fence: a leader whose lock session died must not write another batch.
    await deps.lock.assertHeld(tx);
    // Webhooks see the batch in the transaction that writes it: queued only if it commits.
    const watch = webhooks ? await watchBatch(tx, deps.chain.chainId, seen) : null;
    await writeBatch(tx, {
      chainId: deps.chain.chainId,
      batch,
      expected: { block: cp.block, hash: cp.hash },
      nativeBalances: prepared.nativeBalances,
      newTokens: prepared.newTokens,
      pools,
      undo: batch.toBlock > finalized,
      pruneUndoBelow: finalized - BigInt(deps.maxBatchSize),
      headBlock: head,
      backfillDone: backfillDone || at.caughtUp,
      storeLogs: deps.storeLogs,
    });
    await deps.reconciler.apply(tx, plan, batch, batch.toBlock > finalized);
    if (watch) {
      await queueWebhookDeliveries(tx, deps.chain, seen, watch, {
        newTokens: unstored ? [...prepared.newTokens, ...unstored.tokens] : prepared.newTokens,
        storeLogs: deps.storeLogs,
        balanceSteps: prepared.balanceSteps,
        logoOf: tokenLogos(deps.chain),
        unstored,
      });
    }
  });
  return {
    plan,
    pools,
    checkpoint: { block: last.number, hash: last.hash, time: last.time },
    backfillDone,
  };
}
