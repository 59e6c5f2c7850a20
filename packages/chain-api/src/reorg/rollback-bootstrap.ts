import type { Queryable } from '@sluice/db';
import { deleteBootstrapCommitsAbove } from '../store/wallets/pool-bootstrap-commits.js';

/**
 * Undoes the pool bootstrap of a wallets-mode chain above its checkpoint `block`: the chunks it
 * committed there were removed with the rolled-back rows (their undo entries sit at the chunk's
 * block), so their progress records go too and the scan resumes after the last one that remains.
 *
 * @example
 * await rollbackBootstrap(db, 1, checkpoint.block);
 */
export async function rollbackBootstrap(
  db: Queryable,
  chainId: number,
  block: bigint,
): Promise<void> {
  await deleteBootstrapCommitsAbove(db, chainId, block);
}
