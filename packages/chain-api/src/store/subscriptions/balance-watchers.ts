import type { Queryable } from '@sluice/db';

/**
 * Which of `wallets` an active balances webhook of `chainId` watches. Read outside the batch's
 * transaction (the prepare stage decides which intermediate balances to read from the node).
 *
 * @example
 * const watched = await watchedBalanceWallets(db, 1, ['0xabc...']);
 */
export async function watchedBalanceWallets(
  db: Queryable,
  chainId: number,
  wallets: readonly string[],
): Promise<Set<string>> {
  if (wallets.length === 0) return new Set();
  const { rows } = await db.query<{ address: string }>(
    `select distinct a.address from webhook_addresses a join webhooks w on w.id = a.webhook_id
      where a.address = any($2::text[]) and w.active and w.type = 'balances'
        and (w.chain_ids is null or $1::bigint = any(w.chain_ids))`,
    [chainId, wallets],
  );
  return new Set(rows.map((r) => r.address));
}
