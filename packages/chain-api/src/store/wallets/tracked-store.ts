import type { Queryable } from '@sluice/db';

/** One row of `tracked_wallets`. */
export interface TrackedWallet {
  wallet: string;
  status: 'pending' | 'backfilling' | 'ready' | 'failed';
  handoverBlock: bigint | null;
  generation: number;
  discovery: string | null;
  warning: string | null;
  error: string | null;
  attempts: number;
}

interface Row {
  wallet: string;
  status: TrackedWallet['status'];
  handover_block: string | null;
  generation: number;
  discovery: string | null;
  warning: string | null;
  error: string | null;
  attempts: number;
}

const toTracked = (r: Row): TrackedWallet => ({
  wallet: r.wallet,
  status: r.status,
  handoverBlock: r.handover_block === null ? null : BigInt(r.handover_block),
  generation: r.generation,
  discovery: r.discovery,
  warning: r.warning,
  error: r.error,
  attempts: r.attempts,
});

const COLUMNS =
  'wallet, status, handover_block::text as handover_block, generation, discovery, warning, error, attempts';

/**
 * Starts tracking `wallets` on a chain (no-op for tracked ones) and marks them requested now
 * (least-recently-requested eviction). Returns their rows.
 *
 * @example
 * const [w] = await trackWallets(db, 1, ['0xabc…']); // w.status === 'pending'
 */
export async function trackWallets(
  db: Queryable,
  chainId: number,
  wallets: readonly string[],
): Promise<TrackedWallet[]> {
  if (wallets.length === 0) return [];
  const { rows } = await db.query<Row>(
    `insert into tracked_wallets (chain_id, wallet)
     select $1, w from unnest($2::text[]) as w
     on conflict (chain_id, wallet) do update set requested_at = now()
       where tracked_wallets.requested_at < now() - interval '1 second'
     returning ${COLUMNS}`,
    [chainId, [...new Set(wallets)]],
  );
  // Rows not updated (requested within the last second) are not returned: read them.
  const missing = wallets.filter((w) => !rows.some((r) => r.wallet === w));
  if (missing.length > 0) rows.push(...(await selectTracked(db, chainId, missing)));
  return rows.map(toTracked);
}

async function selectTracked(db: Queryable, chainId: number, wallets: readonly string[]) {
  const { rows } = await db.query<Row>(
    `select ${COLUMNS} from tracked_wallets where chain_id = $1 and wallet = any($2::text[])`,
    [chainId, wallets],
  );
  return rows;
}

/**
 * Rows of `wallets` (untracked ones are absent).
 *
 * @example
 * const rows = await readTracked(db, 1, ['0xabc…']);
 */
export async function readTracked(
  db: Queryable,
  chainId: number,
  wallets: readonly string[],
): Promise<TrackedWallet[]> {
  return (await selectTracked(db, chainId, wallets)).map(toTracked);
}

/**
 * Every tracked wallet of a chain.
 *
 * @example
 * const all = await listTracked(db, 1);
 */
export async function listTracked(db: Queryable, chainId: number): Promise<TrackedWallet[]> {
  const { rows } = await db.query<Row>(
    `select ${COLUMNS} from tracked_wallets where chain_id = $1`,
    [chainId],
  );
  return rows.map(toTracked);
}

/**
 * Tracked wallets of a chain not yet ready (to hand over or backfill).
 *
 * @example
 * const todo = await listUnready(db, 1);
 */
export async function listUnready(db: Queryable, chainId: number): Promise<TrackedWallet[]> {
  const { rows } = await db.query<Row>(
    `select ${COLUMNS} from tracked_wallets where chain_id = $1 and status <> 'ready'`,
    [chainId],
  );
  return rows.map(toTracked);
}

/**
 * Counts per status, for /health.
 *
 * @example
 * const counts = await countTracked(db, 1); // { ready: 3, pending: 1 }
 */
export async function countTracked(
  db: Queryable,
  chainId: number,
): Promise<Record<string, number>> {
  const { rows } = await db.query<{ status: string; n: string }>(
    'select status, count(*)::text as n from tracked_wallets where chain_id = $1 group by status',
    [chainId],
  );
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/**
 * Deletes everything the store holds for `wallets` on a chain: activity, balances, holdings, and
 * the transactions (with their logs) no other tracked wallet sent or received. Call in the
 * transaction that changes their tracking rows.
 *
 * @example
 * await deleteWalletData(tx, 1, ['0xabc…']);
 */
export async function deleteWalletData(
  tx: Queryable,
  chainId: number,
  wallets: readonly string[],
): Promise<void> {
  if (wallets.length === 0) return;
  const p = [chainId, wallets];
  await tx.query('delete from activity where chain_id = $1 and wallet = any($2::text[])', p);
  await tx.query('delete from erc20_balances where chain_id = $1 and wallet = any($2::text[])', p);
  await tx.query('delete from native_balances where chain_id = $1 and wallet = any($2::text[])', p);
  await tx.query('delete from nft_holdings where chain_id = $1 and wallet = any($2::text[])', p);
  // A transaction stays while another tracked wallet is its sender or recipient.
  const others = `(select o.wallet from tracked_wallets o
                    where o.chain_id = $1 and o.wallet <> all($2::text[]))`;
  const { rows } = await tx.query<{ block_number: string; tx_index: number }>(
    `delete from transactions t
      where t.chain_id = $1
        and (t.from_address = any($2::text[]) or t.to_address = any($2::text[]))
        and t.from_address not in ${others}
        and (t.to_address is null or t.to_address not in ${others})
      returning t.block_number::text as block_number, t.tx_index`,
    p,
  );
  if (rows.length > 0) {
    await tx.query(
      `delete from logs l using unnest($2::int8[], $3::int4[]) as k(b, i)
        where l.chain_id = $1 and l.block_number = k.b and l.tx_index = k.i`,
      [chainId, rows.map((r) => r.block_number), rows.map((r) => r.tx_index)],
    );
  }
}
