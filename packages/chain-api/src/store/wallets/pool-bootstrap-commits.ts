import type { Queryable } from '@sluice/db';

/** How far the pool bootstrap of a chain is, from its latest commit. */
export interface BootstrapProgress {
  targetBlock: bigint;
  scannedBlock: bigint;
  done: boolean;
  /** Pools committed over every commit. */
  pools: number;
}

/** The latest commit's progress, or undefined before the first. */
export async function loadBootstrapProgress(
  db: Queryable,
  chainId: number,
): Promise<BootstrapProgress | undefined> {
  const { rows } = await db.query<{
    target_block: string;
    scanned_block: string;
    done: boolean;
    pools: string;
  }>(
    `select target_block::text, scanned_block::text, done,
            (select coalesce(sum(pools), 0)::text from pool_bootstrap_commits where chain_id = $1) as pools
       from pool_bootstrap_commits where chain_id = $1 order by seq desc limit 1`,
    [chainId],
  );
  const r = rows[0];
  return r
    ? {
        targetBlock: BigInt(r.target_block),
        scannedBlock: BigInt(r.scanned_block),
        done: r.done,
        pools: Number(r.pools),
      }
    : undefined;
}

/** Records a committed chunk of the scan (read at `block`, whose time is `blockTime`). */
export async function recordBootstrapCommit(
  tx: Queryable,
  chainId: number,
  commit: {
    block: bigint;
    blockTime: Date;
    targetBlock: bigint;
    scannedBlock: bigint;
    pools: number;
    done: boolean;
  },
): Promise<void> {
  await tx.query(
    `insert into pool_bootstrap_commits
       (chain_id, block, block_time, target_block, scanned_block, pools, done)
     values ($1, $2, $7, $3, $4, $5, $6)`,
    [
      chainId,
      commit.block.toString(),
      commit.targetBlock.toString(),
      commit.scannedBlock.toString(),
      commit.pools,
      commit.done,
      commit.blockTime.toISOString(),
    ],
  );
}

/** Forgets the commits above `block` (their rows were rolled back with the store). */
export async function deleteBootstrapCommitsAbove(
  db: Queryable,
  chainId: number,
  block: bigint,
): Promise<void> {
  await db.query('delete from pool_bootstrap_commits where chain_id = $1 and block > $2', [
    chainId,
    block.toString(),
  ]);
}
