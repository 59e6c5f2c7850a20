import type { Queryable } from '@sluice/db';
import {
  toWebhookRow,
  WEBHOOK_COLUMNS,
  type WebhookRow,
} from '../../store/subscriptions/webhook-row.js';

/** Position after the last webhook of a page: its creation time (ISO, microseconds) and id. */
export type WebhookPageKey = readonly [createdAt: string, id: string];

/** The key's webhook with this id; undefined for an unknown id or another key's webhook. */
export async function selectWebhook(
  db: Queryable,
  id: string,
  keyId: string,
): Promise<WebhookRow | undefined> {
  const { rows } = await db.query(
    `select ${WEBHOOK_COLUMNS} from webhooks where id = $1::uuid and key_id = $2`,
    [id, keyId],
  );
  return rows[0] ? toWebhookRow(rows[0]) : undefined;
}

/**
 * One page of the key's webhooks, oldest first (creation time, then id), and whether more
 * follow. Keyset-paged on `webhooks_key_idx`.
 *
 * @example
 * const { rows, more } = await selectWebhooks(db, keyId, undefined, 100);
 */
export async function selectWebhooks(
  db: Queryable,
  keyId: string,
  after: WebhookPageKey | undefined,
  limit: number,
): Promise<{ rows: WebhookRow[]; more: boolean }> {
  const { rows } = await db.query(
    `select ${WEBHOOK_COLUMNS} from webhooks
     where key_id = $1
       and ($2::timestamptz is null or (created_at, id) > ($2::timestamptz, $3::uuid))
     order by created_at, id
     limit $4`,
    [keyId, after?.[0] ?? null, after?.[1] ?? null, limit + 1],
  );
  return { rows: rows.slice(0, limit).map(toWebhookRow), more: rows.length > limit };
}

/**
 * One page of a webhook's addresses in address order, after `after`, and whether more follow.
 * The caller has checked that the webhook is the key's.
 *
 * @example
 * const { addresses, more } = await selectWebhookAddresses(db, id, undefined, 100);
 */
export async function selectWebhookAddresses(
  db: Queryable,
  webhookId: string,
  after: string | undefined,
  limit: number,
): Promise<{ addresses: string[]; more: boolean }> {
  const { rows } = await db.query<{ address: string }>(
    `select address from webhook_addresses
     where webhook_id = $1::uuid and ($2::text is null or address > $2)
     order by address
     limit $3`,
    [webhookId, after ?? null, limit + 1],
  );
  return { addresses: rows.slice(0, limit).map((r) => r.address), more: rows.length > limit };
}
