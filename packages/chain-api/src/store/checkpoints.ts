import type { Queryable } from '@sluice/db';
import { BaseError } from '../errors/index.js';

/** Schema of `checkpoints` (part of the core migration; later columns in their migrations). */
export const checkpointsSchema = /* sql */ `
-- One row per chain: how far the store is consistent (every row at or below indexed_block is final
-- for this chain's view), plus what /health and API-only replicas report.
create table checkpoints (
  chain_id       integer     primary key,
  indexed_block  bigint      not null,
  indexed_hash   text        not null,
  indexed_time   timestamptz,
  head_block     bigint,
  backfill_done  boolean     not null default false,
  capabilities   jsonb,                        -- {traces, blockReceipts, multicall3} probed once
  updated_at     timestamptz not null default now()
);
`;

/** Another writer moved the checkpoint (or it isn't where this batch starts). */
export class CheckpointConflictError extends BaseError<'CHECKPOINT_CONFLICT'> {
  override name = 'CheckpointConflictError';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: 'CHECKPOINT_CONFLICT', cause: options.cause });
  }
}

/** A block the checkpoint points at. */
export interface CheckpointBlock {
  block: bigint;
  hash: string;
  time: Date | null;
}

/**
 * Creates the chain's checkpoint at `anchor` unless it exists, with the capabilities probed.
 *
 * @example
 * await createCheckpoint(db, 1, { block: 99n, hash: '0x…', time: null }, caps);
 */
export async function createCheckpoint(
  db: Queryable,
  chainId: number,
  anchor: CheckpointBlock,
  capabilities: unknown,
): Promise<void> {
  await db.query(
    `insert into checkpoints (chain_id, indexed_block, indexed_hash, indexed_time, capabilities)
     values ($1, $2, $3, $4, $5) on conflict (chain_id) do nothing`,
    [
      chainId,
      anchor.block.toString(),
      anchor.hash,
      anchor.time?.toISOString() ?? null,
      JSON.stringify(capabilities),
    ],
  );
}

/** Records the capabilities probed at this start. */
export async function saveCapabilities(
  db: Queryable,
  chainId: number,
  capabilities: unknown,
): Promise<void> {
  await db.query('update checkpoints set capabilities = $2 where chain_id = $1', [
    chainId,
    JSON.stringify(capabilities),
  ]);
}

/**
 * Moves the checkpoint from `expected` to `next` (compare-and-set on the previous block and
 * hash, so two writers can never both apply a batch); throws CheckpointConflictError otherwise.
 */
export async function advanceCheckpoint(
  tx: Queryable,
  chainId: number,
  next: { block: bigint; hash: string; time: Date },
  expected: { block: bigint; hash: string },
  status: { headBlock: bigint; backfillDone: boolean },
): Promise<void> {
  const cas = await tx.query(
    `update checkpoints set indexed_block = $2, indexed_hash = $3, indexed_time = $4, head_block = $5,
            backfill_done = $6, updated_at = now()
      where chain_id = $1 and indexed_block = $7 and indexed_hash = $8`,
    [
      chainId,
      next.block.toString(),
      next.hash,
      next.time.toISOString(),
      status.headBlock.toString(),
      status.backfillDone,
      expected.block.toString(),
      expected.hash,
    ],
  );
  if (cas.rowCount !== 1) {
    throw new CheckpointConflictError(
      `chain ${chainId}: checkpoint is no longer at ${expected.block}`,
    );
  }
}

/**
 * Moves the checkpoint back to `target` after a rollback (hash and time from the stored block;
 * the reconciled block no later than it). Returns the hash it now points at.
 */
export async function rewindCheckpoint(
  tx: Queryable,
  chainId: number,
  target: bigint,
): Promise<string> {
  const t = target.toString();
  const { rows: b } = await tx.query<{ hash: string; timestamp: Date | string }>(
    'select hash, timestamp from blocks where chain_id = $1 and number = $2',
    [chainId, t],
  );
  const hash = b[0]?.hash ?? '0x';
  await tx.query(
    `update checkpoints set indexed_block = $2, indexed_hash = $3, indexed_time = $4,
            backfill_done = false, updated_at = now(),
            reconciled_block = case when reconciled_block is null then null
                                    else least(reconciled_block, $2::int8) end
      where chain_id = $1`,
    [chainId, t, hash, b[0] ? new Date(b[0].timestamp).toISOString() : null],
  );
  return hash;
}

/** Keeps head_block/updated_at fresh so API-only replicas can tell the leader is alive. */
export async function touchCheckpointHead(
  db: Queryable,
  chainId: number,
  head: bigint,
): Promise<void> {
  await db.query(
    'update checkpoints set head_block = $2, backfill_done = true, updated_at = now() where chain_id = $1',
    [chainId, head.toString()],
  );
}

/** Records (or clears, with null) why indexing of the chain is stopped. */
export async function setCheckpointHalted(
  db: Queryable,
  chainId: number,
  message: string | null,
): Promise<void> {
  await db.query(
    'update checkpoints set halted = $2, updated_at = now() where chain_id = $1 and halted is distinct from $2',
    [chainId, message],
  );
}

/** Stores the chain's genesis hash unless one is stored; returns the stored one. */
export async function rememberGenesis(
  db: Queryable,
  chainId: number,
  genesisHash: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ genesis_hash: string | null }>(
    `update checkpoints set genesis_hash = coalesce(genesis_hash, $2) where chain_id = $1
     returning genesis_hash`,
    [chainId, genesisHash],
  );
  return rows[0]?.genesis_hash ?? undefined;
}

/** Records the block up to which balances were reconciled (null: none). */
export async function setReconciledBlock(
  tx: Queryable,
  chainId: number,
  block: bigint | null,
): Promise<void> {
  await tx.query('update checkpoints set reconciled_block = $2::int8 where chain_id = $1', [
    chainId,
    block === null ? null : block.toString(),
  ]);
}

/** Locks the checkpoint row and returns its block (null without a checkpoint). */
export async function lockCheckpoint(tx: Queryable, chainId: number): Promise<bigint | null> {
  const { rows } = await tx.query<{ indexed_block: string }>(
    'select indexed_block::text as indexed_block from checkpoints where chain_id = $1 for update',
    [chainId],
  );
  return rows[0] ? BigInt(rows[0].indexed_block) : null;
}
