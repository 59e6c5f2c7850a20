import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import type { RpcClient } from '../rpc/index.js';
import { CheckpointConflictError } from '../store/index.js';
import { handleReorg } from './handle-reorg.js';

/** What a repair needs: the store, the node, and how the indexer reloads its memory. */
export interface ReorgRepair {
  db: Database;
  rpc: RpcClient;
  chainId: number;
  /** The lowest block a rollback may reach (just below the chain's start block). */
  lowest: bigint;
  log: Logger;
  /**
   * Reloads the indexer's checkpoint and caches from the restored store (`depth` is how many
   * indexed blocks the fork replaced); returns the reloaded checkpoint block.
   */
  reload: (rolledBack: { depth: number }) => Promise<bigint>;
}

/**
 * Rolls the store back to the common ancestor with the node's chain, then has the indexer reload
 * from it. A checkpoint that moved between the rollback and the reload means another writer.
 *
 * @example
 * await repairReorg({ db, rpc, chainId: 1, lowest: -1n, log, reload }, checkpoint.block);
 */
export async function repairReorg(repair: ReorgRepair, indexed: bigint): Promise<void> {
  const { db, rpc, chainId, lowest, log } = repair;
  const next = await handleReorg(db, rpc, chainId, indexed, lowest, log);
  const reloaded = await repair.reload({ depth: next.depth });
  if (reloaded !== next.block)
    throw new CheckpointConflictError('checkpoint moved during rollback');
}
