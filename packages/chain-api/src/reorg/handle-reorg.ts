import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import { rollbackTo } from '../db/index.js';
import { rollbackPricing } from '../pricing/rollback-pricing.js';
import type { RpcClient } from '../rpc/index.js';
import { findCommonAncestor, ReorgTooDeepError } from './find-common-ancestor.js';

/**
 * Repairs the store after the node's chain diverged from it: finds the common ancestor, then in
 * ONE transaction restores balances/holdings/pools from the undo log and deletes every derived
 * row above it. Returns the new checkpoint; the indexer re-indexes from there.
 */
export async function handleReorg(
  db: Database,
  rpc: RpcClient,
  chainId: number,
  indexed: bigint,
  lowest: bigint,
  log: Logger,
): Promise<{ block: bigint; hash: string }> {
  // Only blocks whose changes the undo log still holds can be rolled back exactly: the search
  // stops at the window's floor, and a fork below it is an error, never a silent partial repair.
  const { rows: w } = await db.query<{ first: string | null }>(
    `select min(batch_from)::text as first from reorg_undo where chain_id = $1 and tbl = 'batch'`,
    [chainId],
  );
  const windowFloor = w[0]?.first ? BigInt(w[0].first) - 1n : indexed;
  const ancestor = await findCommonAncestor(
    db,
    rpc,
    chainId,
    indexed,
    windowFloor > lowest ? windowFloor : lowest,
  );
  if (ancestor >= indexed) {
    // The store still matches the node; only data fetched in flight was stale.
    const { rows } = await db.query<{ indexed_hash: string }>(
      'select indexed_hash from checkpoints where chain_id = $1',
      [chainId],
    );
    return { block: indexed, hash: rows[0]?.indexed_hash ?? '0x' };
  }
  const result = await db.transaction(async (tx) => {
    const r = await rollbackTo(tx, chainId, ancestor);
    if (!r.restorable && indexed > ancestor) {
      throw new ReorgTooDeepError(
        `the fork at block ${ancestor + 1n} is below the undo window (blocks written as final)`,
      );
    }
    // Prices derived from the orphaned blocks go in the same transaction.
    await rollbackPricing(tx, chainId, r.target);
    return r;
  });
  const depth = Number(indexed - ancestor);
  log.warn(
    {
      chainId,
      indexed: Number(indexed),
      ancestor: Number(ancestor),
      rolledBackTo: Number(result.target),
      depth,
    },
    'reorg: rolled back',
  );
  return { block: result.target, hash: result.hash };
}
