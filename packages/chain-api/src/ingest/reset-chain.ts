import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import { announceStoreChange, publishStoreChange } from '../store/changes/publish-store-change.js';
import { StoreChangeBuilder } from '../store/changes/store-change-builder.js';
import { deleteChainRows } from '../store/delete-chain-rows.js';

/**
 * Deletes everything indexed for one chain (every table of the store's schema with a `chain_id`
 * column: blocks, activity, balances, pools, prices, NFT data, checkpoint, ...), in one
 * transaction, so the next start re-indexes it from its start block. Returns rows deleted per
 * table (tables with none omitted).
 *
 * @example
 * const deleted = await resetChainData(db, 31337); // { activity: 1200, blocks: 81, ... }
 */
export async function resetChainData(
  db: Database,
  chainId: number,
): Promise<Record<string, number>> {
  return db.transaction(async (tx) => {
    // Other chains' cached answers stay valid.
    await announceStoreChange(tx);
    const deleted = await deleteChainRows(tx, chainId);
    await publishStoreChange(tx, new StoreChangeBuilder().everything(chainId));
    return deleted;
  });
}

/**
 * The node serves another chain than the store and the chain is configured to re-index: deletes
 * its indexed data, saying why and how much.
 *
 * @example
 * await reindexReplaced(db, 31337, log, error);
 */
export async function reindexReplaced(
  db: Database,
  chainId: number,
  log: Logger,
  error: Error,
): Promise<void> {
  log.warn({ err: error.message }, 'chain replaced: deleting its indexed data, re-indexing');
  const deleted = await resetChainData(db, chainId);
  log.info({ deleted }, 'chain data deleted');
}
