import type { Queryable } from '@sluice/db';
import type { ChainConfig } from '../chains/index.js';
import type { ChainCapabilities, RpcClient } from '../rpc/index.js';
import { writeAnchorBlock } from '../store/chain-data.js';
import { createCheckpoint, saveCapabilities } from '../store/checkpoints.js';
import type { Checkpoint } from './indexer-types.js';

/** What a standby replica reads of the leader's progress (for its /health). */
export interface StandbyStatus {
  indexed: bigint | null;
  head: bigint | null;
  /** The leader finished its backfill and wrote its progress in the last 30 s. */
  fresh: boolean;
  /** Why the chain is stopped, when it is (e.g. replaced). */
  error?: string | undefined;
}

async function readCheckpoint(db: Queryable, chainId: number): Promise<Checkpoint | undefined> {
  const { rows } = await db.query<{
    indexed_block: string;
    indexed_hash: string;
    indexed_time: Date | string | null;
  }>('select indexed_block, indexed_hash, indexed_time from checkpoints where chain_id = $1', [
    chainId,
  ]);
  const r = rows[0];
  return r
    ? {
        block: BigInt(r.indexed_block),
        hash: r.indexed_hash,
        time: r.indexed_time ? new Date(r.indexed_time) : null,
      }
    : undefined;
}

/**
 * The chain's checkpoint, created on first use: just below `startBlock`, anchored on the node's
 * block there (stored in `blocks` so the first batch's parent hash can be checked). Records the
 * capabilities probed at this start.
 *
 * @example
 * const cp = await loadCheckpoint(db, rpc, chain, caps); // { block: 99n, hash: '0x…', time }
 */
export async function loadCheckpoint(
  db: Queryable,
  rpc: RpcClient,
  chain: ChainConfig,
  caps: ChainCapabilities | undefined,
): Promise<Checkpoint> {
  const chainId = chain.chainId;
  const existing = await readCheckpoint(db, chainId);
  if (existing) {
    await saveCapabilities(db, chainId, caps);
    return existing;
  }
  const start = chain.startBlock;
  let anchor: Checkpoint = { block: start - 1n, hash: '0x', time: null };
  if (start > 0n) {
    const b = await rpc.request<{ hash: string; parentHash: string; timestamp: string }>(
      'eth_getBlockByNumber',
      [`0x${(start - 1n).toString(16)}`, false],
      { validate: (r) => r !== null },
    );
    anchor = {
      block: start - 1n,
      hash: b.hash.toLowerCase(),
      time: new Date(Number(BigInt(b.timestamp)) * 1000),
    };
    await writeAnchorBlock(db, chainId, {
      number: anchor.block,
      hash: anchor.hash,
      parentHash: b.parentHash.toLowerCase(),
      time: anchor.time,
    });
  }
  await createCheckpoint(db, chainId, anchor, caps);
  return (await readCheckpoint(db, chainId)) as Checkpoint;
}

/**
 * The leader's progress as a standby sees it in the store.
 *
 * @example
 * const s = await readStandbyStatus(db, 1); // { indexed: 100n, head: 101n, fresh: true }
 */
export async function readStandbyStatus(db: Queryable, chainId: number): Promise<StandbyStatus> {
  const { rows } = await db.query<{
    indexed_block: string;
    head_block: string | null;
    backfill_done: boolean;
    age: number | string;
    halted: string | null;
  }>(
    `select indexed_block, head_block, backfill_done, halted,
            extract(epoch from now() - updated_at) as age
       from checkpoints where chain_id = $1`,
    [chainId],
  );
  const r = rows[0];
  return r
    ? {
        indexed: BigInt(r.indexed_block),
        head: r.head_block === null ? null : BigInt(r.head_block),
        fresh: r.backfill_done && Number(r.age) < 30,
        error: r.halted ?? undefined,
      }
    : { indexed: null, head: null, fresh: false };
}
