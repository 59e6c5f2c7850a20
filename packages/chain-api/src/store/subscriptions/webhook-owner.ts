import type { Queryable } from '@sluice/db';
import type { UsagePeriod } from '../api/api-key-usage.js';

/** The API key that owns a webhook, with its compute-unit quota. */
export interface WebhookOwner {
  keyId: string;
  /** Null: no quota. */
  cuQuota: number | null;
  cuPeriod: UsagePeriod;
}

/**
 * The owning key of `webhookId` (undefined when the webhook is gone).
 *
 * @example
 * const owner = await readWebhookOwner(db, delivery.webhookId);
 */
export async function readWebhookOwner(
  db: Queryable,
  webhookId: string,
): Promise<WebhookOwner | undefined> {
  const { rows } = await db.query<{
    id: string;
    cu_quota: string | number | null;
    cu_period: UsagePeriod;
  }>(
    `select k.id, k.cu_quota, k.cu_period from webhooks w join api_keys k on k.id = w.key_id
      where w.id = $1`,
    [webhookId],
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    keyId: r.id,
    cuQuota: r.cu_quota === null ? null : Number(r.cu_quota),
    cuPeriod: r.cu_period,
  };
}

/**
 * Puts a claimed delivery back in its queue untried (the attempt is not counted) until `until`,
 * with `reason` as its `last_error`: the webhook's later deliveries wait behind it, in order.
 * False when the claim was lost meanwhile.
 *
 * @example
 * await holdDelivery(db, claimed, new Date(Date.now() + 30_000), 'compute unit quota exhausted');
 */
export async function holdDelivery(
  db: Queryable,
  delivery: { id: string; attempt: number },
  until: Date,
  reason: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `update webhook_deliveries
        set status = 'pending', attempts = attempts - 1, next_attempt_at = $3, last_error = $4,
            claimed_until = null, updated_at = now()
      where id = $1 and status = 'sending' and attempts = $2`,
    [delivery.id, delivery.attempt, until, reason],
  );
  return rowCount > 0;
}
