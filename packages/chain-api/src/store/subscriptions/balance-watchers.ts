import type { Queryable } from '@sluice/db';
import type { WebhookType } from './webhook-watch.js';

/**
 * Which of `wallets` an active webhook of `chainId` watches, with the types of the webhooks
 * watching each. Read outside the batch's transaction, in the prepare stage (which intermediate
 * balances to read from the node; which wallets a mode that does not store them needs items for).
 *
 * @example
 * const watched = await watchedWallets(db, 1, ['0xabc...']); // Map { '0xabc...' => Set { 'balances' } }
 */
export async function watchedWallets(
  db: Queryable,
  chainId: number,
  wallets: readonly string[],
): Promise<Map<string, Set<WebhookType>>> {
  const out = new Map<string, Set<WebhookType>>();
  if (wallets.length === 0) return out;
  const { rows } = await db.query<{ address: string; type: WebhookType }>(
    `select distinct a.address, w.type
       from webhook_addresses a join webhooks w on w.id = a.webhook_id
      where a.address = any($2::text[]) and w.active
        and (w.chain_ids is null or $1::bigint = any(w.chain_ids))`,
    [chainId, wallets],
  );
  for (const r of rows) out.set(r.address, (out.get(r.address) ?? new Set()).add(r.type));
  return out;
}

/**
 * Which of `wallets` an active balances webhook of `chainId` watches.
 *
 * @example
 * const watched = await watchedBalanceWallets(db, 1, ['0xabc...']);
 */
export async function watchedBalanceWallets(
  db: Queryable,
  chainId: number,
  wallets: readonly string[],
): Promise<Set<string>> {
  const watched = await watchedWallets(db, chainId, wallets);
  return new Set([...watched].filter(([, types]) => types.has('balances')).map(([a]) => a));
}
