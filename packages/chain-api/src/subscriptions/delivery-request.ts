import { createHmac } from 'node:crypto';
import type { ClaimedDelivery } from '../store/subscriptions/delivery-queue.js';

/** The body key of each webhook type. */
const BODY_KEY = {
  balances: 'balance_changes',
  activities: 'activities',
  transactions: 'transactions',
} as const;

/**
 * `sha256=` + the hex HMAC-SHA256 of the exact body bytes with the webhook's secret: the form
 * `@sluice/webhooks` `verify(secret, body, signature)` checks.
 *
 * @example
 * signBody('s3cret', Buffer.from('{}')); // 'sha256=…64 hex digits…'
 */
export function signBody(secret: string, body: Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * The body and headers of one attempt of a claimed delivery. The body is the stored items inside
 * the type's object, byte for byte as signed; `dune-webhook-retry-index` counts attempts from 0 and
 * `dune-webhook-delivery-id` stays the same across retries and redeliveries (receivers drop
 * duplicates by it). During a rotation's grace period `dune-webhook-signature-previous` carries
 * the signature with the replaced secret, so a receiver still holding it verifies too.
 *
 * @example
 * const { body, headers } = deliveryRequest(claimed, new Date());
 */
export function deliveryRequest(
  delivery: ClaimedDelivery,
  now: Date,
): { body: Buffer; headers: Record<string, string> } {
  const body = Buffer.from(`{"${BODY_KEY[delivery.type]}":${delivery.items}}`);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'sluice-webhooks/1.0',
      'dune-webhook-id': delivery.webhookId,
      'dune-webhook-type': delivery.type,
      'dune-webhook-chain-id': String(delivery.chainId),
      'dune-webhook-dispatch-timestamp': now.toISOString(),
      'dune-webhook-retry-index': String(delivery.attempt - 1),
      'dune-webhook-delivery-id': delivery.id,
      'dune-webhook-signature': signBody(delivery.secret, body),
      ...(delivery.previousSecret
        ? { 'dune-webhook-signature-previous': signBody(delivery.previousSecret, body) }
        : {}),
    },
  };
}
