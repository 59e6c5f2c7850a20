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

/** Who asks for tracking, and how urgently. */
export interface TrackOptions {
  /** The API key asking ('' = the operator: CLI, or an API without keys). Default ''. */
  keyId?: string;
  /** `read`: an answer waits for the backfill (queued first); `bulk`: pre-tracking. Default `read`. */
  priority?: 'read' | 'bulk';
}

/**
 * Starts tracking `wallets` on a chain for a key (no-op for tracked ones) and marks them
 * requested now by that key (per-key least-recently-requested eviction). A read moves a wallet
 * queued by bulk tracking ahead. Returns their rows, one per distinct wallet.
 *
 * @example
 * const [w] = await trackWallets(db, 1, ['0xabc…'], { keyId: 'k1' }); // w.status === 'pending'
 */
export async function trackWallets(
  db: Queryable,
  chainId: number,
  wallets: readonly string[],
  opts: TrackOptions = {},
): Promise<TrackedWallet[]> {
  if (wallets.length === 0) return [];
  const unique = [...new Set(wallets)];
  const priority = opts.priority === 'bulk' ? 1 : 0;
  // One statement: the owner row and the tracking row appear together (eviction deletes a
  // tracking row only when no owner row is left).
  const { rows } = await db.query<Row>(
    `with w as (select unnest($2::text[]) as wallet),
     owners as (
       insert into tracked_wallet_owners (chain_id, key_id, wallet)
       select $1, $3, wallet from w
       on conflict (chain_id, key_id, wallet) do update set requested_at = now()
         where tracked_wallet_owners.requested_at < now() - interval '1 second'
     )
     insert into tracked_wallets (chain_id, wallet, priority)
     select $1, wallet, $4 from w
     on conflict (chain_id, wallet) do update
       set requested_at = now(), priority = least(tracked_wallets.priority, excluded.priority)
       where tracked_wallets.requested_at < now() - interval '1 second'
          or tracked_wallets.priority > excluded.priority
     returning ${COLUMNS}`,
    [chainId, unique, opts.keyId ?? '', priority],
  );
  // Rows not updated (requested within the last second) are not returned: read them.
  const returned = new Set(rows.map((r) => r.wallet));
  const missing = unique.filter((w) => !returned.has(w));
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
 * Every tracked wallet of a chain, in backfill order (see `listUnready`).
 *
 * @example
 * const all = await listTracked(db, 1);
 */
export async function listTracked(db: Queryable, chainId: number): Promise<TrackedWallet[]> {
  const { rows } = await db.query<Row>(
    `select ${COLUMNS} from tracked_wallets where chain_id = $1 order by priority, created_at, wallet`,
    [chainId],
  );
  return rows.map(toTracked);
}

/**
 * The first `limit` tracked wallets of a chain not yet ready, in backfill order: wallets a read
 * waits for first, then bulk-tracked ones, each oldest first.
 *
 * @example
 * const next = await listUnready(db, 1, 100);
 */
export async function listUnready(
  db: Queryable,
  chainId: number,
  limit = 1_000,
): Promise<TrackedWallet[]> {
  const { rows } = await db.query<Row>(
    `select ${COLUMNS} from tracked_wallets where chain_id = $1 and status <> 'ready'
      order by priority, created_at, wallet limit $2`,
    [chainId, limit],
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
  // A transaction stays while another tracked wallet is its sender or recipient. The wallets
  // are a hashed set (a per-row `<> all(array)` was quadratic: 90,000 evicted wallets took hours).
  const { rows } = await tx.query<{ block_number: string; tx_index: number }>(
    `with gone as materialized (select distinct unnest($2::text[]) as w),
     others as materialized (
       select o.wallet from tracked_wallets o
        where o.chain_id = $1 and not exists (select 1 from gone g where g.w = o.wallet)
     )
     delete from transactions t
      where t.chain_id = $1
        and (t.from_address = any($2::text[]) or t.to_address = any($2::text[]))
        and not exists (select 1 from others x where x.wallet = t.from_address)
        and (t.to_address is null or not exists (select 1 from others x where x.wallet = t.to_address))
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
