import type { Queryable } from '@sluice/db';
import {
  toWebhookRow,
  WEBHOOK_COLUMNS,
  type WebhookFilters,
  type WebhookRow,
  type WebhookType,
} from './webhook-row.js';

/** A webhook to create; `addresses` lower-case and distinct. */
export interface NewWebhook extends WebhookFilters {
  id: string;
  keyId: string;
  name: string;
  url: string;
  type: WebhookType;
  active: boolean;
  confirmations: number;
  secret: string;
  addresses: readonly string[];
}

/** Fields a PATCH may change; absent keys keep their value, a null filter clears it. */
export type WebhookChanges = Partial<
  WebhookFilters & { name: string; url: string; active: boolean; confirmations: number }
>;

/** Column of each changeable field (fixed names: never from input). */
const CHANGE_COLUMNS: Record<keyof WebhookChanges, string> = {
  name: 'name',
  url: 'url',
  active: 'active',
  confirmations: 'confirmations',
  chainIds: 'chain_ids',
  transactionType: 'transaction_type',
  counterparty: 'counterparty',
  activityType: 'activity_type',
  assetType: 'asset_type',
  tokenAddress: 'token_address',
};

/**
 * Creates a webhook and its address list in one statement (both or neither): the addresses go
 * in as one array, so 10,000 of them cost one round trip.
 *
 * @example
 * const row = await insertWebhook(db, { id, keyId, name: 'n', url, type: 'balances', active: true,
 *   confirmations: 0, secret, addresses: [], chainIds: null, transactionType: null,
 *   counterparty: null, activityType: null, assetType: null, tokenAddress: null });
 */
export async function insertWebhook(db: Queryable, w: NewWebhook): Promise<WebhookRow> {
  const { rows } = await db.query(
    `with w as (
       insert into webhooks (id, key_id, name, url, type, active, chain_ids, transaction_type,
         counterparty, activity_type, asset_type, token_address, confirmations, secret)
       values ($1::uuid, $2, $3, $4, $5, $6, $7::bigint[], $8, $9, $10, $11, $12, $13, $14)
       returning *
     ), a as (
       insert into webhook_addresses (webhook_id, address)
       select w.id, x from w, unnest($15::text[]) as x
       on conflict do nothing
     )
     select ${WEBHOOK_COLUMNS} from w`,
    [
      w.id,
      w.keyId,
      w.name,
      w.url,
      w.type,
      w.active,
      w.chainIds,
      w.transactionType,
      w.counterparty,
      w.activityType,
      w.assetType,
      w.tokenAddress,
      w.confirmations,
      w.secret,
      w.addresses,
    ],
  );
  return toWebhookRow(rows[0] as Record<string, unknown>);
}

/**
 * Applies `changes` to the key's webhook; undefined when the key has no such webhook.
 * Re-activating (`active: true`) also clears `disabled_reason` and `failing_since`, so a webhook
 * the delivery worker disabled starts afresh.
 *
 * @example
 * await updateWebhook(db, id, keyId, { active: false });
 */
export async function updateWebhook(
  db: Queryable,
  id: string,
  keyId: string,
  changes: WebhookChanges,
): Promise<WebhookRow | undefined> {
  const sets = ['updated_at = now()'];
  const params: unknown[] = [id, keyId];
  for (const [field, column] of Object.entries(CHANGE_COLUMNS)) {
    const value = changes[field as keyof WebhookChanges];
    if (value === undefined) continue;
    params.push(value);
    sets.push(`${column} = $${params.length}${column === 'chain_ids' ? '::bigint[]' : ''}`);
  }
  if (changes.active === true) sets.push('disabled_reason = null', 'failing_since = null');
  const { rows } = await db.query(
    `update webhooks set ${sets.join(', ')}
     where id = $1::uuid and key_id = $2
     returning ${WEBHOOK_COLUMNS}`,
    params,
  );
  return rows[0] ? toWebhookRow(rows[0]) : undefined;
}

/** Deletes the key's webhook (its addresses go with it); false when there is none. */
export async function deleteWebhook(db: Queryable, id: string, keyId: string): Promise<boolean> {
  const { rowCount } = await db.query('delete from webhooks where id = $1::uuid and key_id = $2', [
    id,
    keyId,
  ]);
  return rowCount > 0;
}

/**
 * Replaces the signing secret; the one it replaces keeps verifying for `graceMs` (a second
 * rotation within that time drops the oldest). Undefined when the key has no such webhook.
 *
 * @example
 * const r = await rotateWebhookSecret(db, id, keyId, 'whsec_…', 86_400_000);
 */
export async function rotateWebhookSecret(
  db: Queryable,
  id: string,
  keyId: string,
  secret: string,
  graceMs: number,
): Promise<{ row: WebhookRow; previousSecretExpiresAt: string | null } | undefined> {
  const { rows } = await db.query<Record<string, unknown> & { previous_expires: string | null }>(
    `update webhooks set
       previous_secret = case when $4::float8 > 0 then secret end,
       previous_secret_expires_at = case when $4::float8 > 0
         then now() + $4::float8 * interval '1 millisecond' end,
       secret = $3,
       updated_at = now()
     where id = $1::uuid and key_id = $2
     returning ${WEBHOOK_COLUMNS},
       to_char(previous_secret_expires_at at time zone 'UTC',
         'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as previous_expires`,
    [id, keyId, secret, graceMs],
  );
  const row = rows[0];
  if (!row) return undefined;
  return { row: toWebhookRow(row), previousSecretExpiresAt: row.previous_expires };
}
