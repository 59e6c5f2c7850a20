import type { Queryable } from '@sluice/db';

/** One delivery as the delivery log shows it. */
export interface DeliveryLogRow {
  id: string;
  chain_id: number;
  block_number: string;
  block_hash: string;
  removal: boolean;
  item_count: number;
  status: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: Date | string;
  created_at: Date | string;
  first_sent_at: Date | string | null;
  delivered_at: Date | string | null;
}

/**
 * The API key that owns webhook `id`, undefined when there is no such webhook.
 *
 * @example
 * const owner = await webhookOwner(db, id);
 */
export async function webhookOwner(db: Queryable, id: string): Promise<string | undefined> {
  const { rows } = await db.query<{ key_id: string }>('select key_id from webhooks where id = $1', [
    id,
  ]);
  return rows[0]?.key_id;
}

/**
 * A page of a webhook's deliveries, newest first (one extra row tells whether more follow).
 *
 * @example
 * const rows = await selectDeliveries(db, id, 50, 0);
 */
export async function selectDeliveries(
  db: Queryable,
  webhookId: string,
  limit: number,
  offset: number,
): Promise<DeliveryLogRow[]> {
  const { rows } = await db.query<DeliveryLogRow>(
    `select id, chain_id, block_number::text as block_number, block_hash, removal, item_count,
            status, attempts, last_status, last_error, next_attempt_at, created_at, first_sent_at,
            delivered_at
       from webhook_deliveries where webhook_id = $1
      order by seq desc limit $2 offset $3`,
    [webhookId, limit + 1, offset],
  );
  return rows;
}
