import type { WebhookRow } from '../../store/subscriptions/webhook-row.js';

/** A webhook as the API answers it (the peer's `Webhook` plus our extensions). */
export interface WebhookJson {
  id: string;
  team_id: string;
  name: string;
  type: string;
  url: string;
  active: boolean;
  created_at: string;
  updated_at: string;
  chain_ids: number[] | null;
  transaction_type?: string;
  counterparty?: string;
  activity_type?: string;
  asset_type?: string;
  token_address?: string;
  confirmations: number;
  disabled_reason?: string;
  /** Only in the answers of create and rotation. */
  secret?: string;
}

/**
 * The peer's field order and omissions: unset filters are left out (as in its examples),
 * `chain_ids` is always present (null: every supported chain). The owner (`team_id`) is the id of
 * the API key that created the webhook.
 *
 * @example
 * webhookJson(row); // { id, team_id: 'key_…', name, type, url, active, created_at, ... }
 */
export function webhookJson(row: WebhookRow): WebhookJson {
  const out: WebhookJson = {
    id: row.id,
    team_id: row.keyId,
    name: row.name,
    type: row.type,
    url: row.url,
    active: row.active,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    chain_ids: row.chainIds,
    confirmations: row.confirmations,
  };
  if (row.transactionType !== null) out.transaction_type = row.transactionType;
  if (row.counterparty !== null) out.counterparty = row.counterparty;
  if (row.activityType !== null) out.activity_type = row.activityType;
  if (row.assetType !== null) out.asset_type = row.assetType;
  if (row.tokenAddress !== null) out.token_address = row.tokenAddress;
  if (row.disabledReason !== null) out.disabled_reason = row.disabledReason;
  return out;
}
