import type { Queryable } from '@sluice/db';
import type { Logger } from 'pino';
import type { ChainCapabilities } from '../rpc/index.js';
import { setCheckpointHalted } from '../store/checkpoints.js';

/**
 * Records (or clears, with null) why indexing of a chain is stopped, in its checkpoint, so
 * standbys and API-only replicas report the same error as the process that stopped.
 *
 * @example
 * await markHalted(db, 1, 'chain 1 (ethereum): genesis differs ...');
 */
export async function markHalted(
  db: Queryable,
  chainId: number,
  message: string | null,
): Promise<void> {
  await setCheckpointHalted(db, chainId, message);
}

/**
 * Whether blocks of this chain were indexed while traces were believed unavailable and the node
 * now serves them: those blocks lack internal native transfers, so the chain must be re-indexed.
 * Reads the capabilities stored by the previous run (before they're overwritten).
 */
export async function indexedWithoutTraces(
  db: Queryable,
  chainId: number,
  startBlock: bigint,
  caps: ChainCapabilities,
): Promise<boolean> {
  if (!caps.traces) return false;
  const { rows } = await db.query<{ indexed_block: string; capabilities: unknown }>(
    'select indexed_block::text as indexed_block, capabilities from checkpoints where chain_id = $1',
    [chainId],
  );
  const row = rows[0];
  if (!row) return false;
  const stored =
    typeof row.capabilities === 'string' ? JSON.parse(row.capabilities) : row.capabilities;
  const hadTraces = (stored as { traces?: unknown } | null)?.traces;
  return hadTraces === false && BigInt(row.indexed_block) >= startBlock;
}

/**
 * Stops a chain for good (the node serves a replaced chain): logs why and records it for
 * standbys and API-only replicas; failing to record it leaves this process's own report.
 *
 * @example
 * await haltReplaced(db, 1, log, error);
 */
export async function haltReplaced(
  db: Queryable,
  chainId: number,
  log: Logger,
  error: Error,
): Promise<void> {
  log.error({ err: error.message }, 'chain replaced: indexing of this chain stopped');
  await markHalted(db, chainId, error.message).catch(() => {});
}
