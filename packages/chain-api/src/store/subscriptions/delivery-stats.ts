import type { Queryable } from '@sluice/db';

/** The open part of the outbox, for /health and the dispatcher's log lines. */
export interface DeliveryStats {
  pending: number;
  sending: number;
  /** Age of the oldest delivery still waiting to go out (0 when none), in seconds. */
  oldest_pending_seconds: number;
}

/**
 * Counts open deliveries (through the partial index of open rows) and the oldest one's age.
 *
 * @example
 * const { pending } = await deliveryStats(db);
 */
export async function deliveryStats(db: Queryable): Promise<DeliveryStats> {
  const { rows } = await db.query<{ status: string; n: string; oldest: number | null }>(
    `select status, count(*)::text as n,
            extract(epoch from now() - min(created_at))::float8 as oldest
       from webhook_deliveries where status in ('pending', 'sending') group by status`,
  );
  const stats: DeliveryStats = { pending: 0, sending: 0, oldest_pending_seconds: 0 };
  for (const r of rows) {
    if (r.status !== 'pending' && r.status !== 'sending') continue;
    stats[r.status] = Number(r.n);
    stats.oldest_pending_seconds = Math.max(stats.oldest_pending_seconds, Number(r.oldest ?? 0));
  }
  return stats;
}
