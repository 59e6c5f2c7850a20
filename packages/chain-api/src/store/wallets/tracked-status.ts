import type { Queryable } from '@sluice/db';

/** A backfill of `wallet` (of this generation) starts: status backfilling, one more attempt. */
export async function markBackfilling(
  db: Queryable,
  chainId: number,
  wallet: string,
  generation: number,
): Promise<void> {
  await db.query(
    `update tracked_wallets set status = 'backfilling', attempts = attempts + 1
      where chain_id = $1 and wallet = $2 and generation = $3`,
    [chainId, wallet, generation],
  );
}

/** Records how the wallet's history is discovered, with the warning it carries (or null). */
export async function saveDiscovery(
  db: Queryable,
  chainId: number,
  wallet: string,
  method: string,
  warning: string | null,
): Promise<void> {
  await db.query(
    'update tracked_wallets set discovery = $3, warning = $4 where chain_id = $1 and wallet = $2',
    [chainId, wallet, method, warning],
  );
}

/** A backfill of `wallet` (of this generation) failed with `message` (kept short). */
export async function markFailed(
  db: Queryable,
  chainId: number,
  wallet: string,
  generation: number,
  message: string,
): Promise<void> {
  await db.query(
    `update tracked_wallets set status = 'failed', error = $4
      where chain_id = $1 and wallet = $2 and generation = $3`,
    [chainId, wallet, generation, message.slice(0, 500)],
  );
}

/** The wallet's history and balances (read at `balancesBlock`) are stored. */
export async function markReady(
  tx: Queryable,
  chainId: number,
  wallet: string,
  balancesBlock: bigint,
  progress: unknown,
): Promise<void> {
  await tx.query(
    `update tracked_wallets set status = 'ready', ready_at = now(), balances_block = $3,
            error = null, progress = $4
      where chain_id = $1 and wallet = $2`,
    [chainId, wallet, balancesBlock.toString(), JSON.stringify(progress)],
  );
}

/**
 * Hands every waiting wallet over at `block`: the follower keeps their rows above it. Returns
 * the wallets handed over.
 */
export async function setHandover(
  tx: Queryable,
  chainId: number,
  block: bigint,
): Promise<string[]> {
  const { rows } = await tx.query<{ wallet: string }>(
    `update tracked_wallets set handover_block = $2
      where chain_id = $1 and status <> 'ready' and handover_block is null
      returning wallet`,
    [chainId, block.toString()],
  );
  return rows.map((r) => r.wallet);
}

/** Puts wallets back to pending (a new generation): their backfill runs again. */
export async function resetTracked(
  tx: Queryable,
  chainId: number,
  wallets: readonly string[],
): Promise<void> {
  await tx.query(
    `update tracked_wallets set status = 'pending', handover_block = null, balances_block = null,
            generation = generation + 1, progress = null, error = null
      where chain_id = $1 and wallet = any($2::text[])`,
    [chainId, wallets],
  );
}
