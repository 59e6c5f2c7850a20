import type { Database, Queryable } from '@sluice/db';

/** A database that can run a transaction (the primary: webhook writes never go to a standby). */
export type TransactionalDb = Queryable & Pick<Database, 'transaction'>;

/** The subscription types of the peer's API. */
export type WebhookType = 'balances' | 'activities' | 'transactions';

/** Filters of a webhook; null means "no filter". */
export interface WebhookFilters {
  chainIds: number[] | null;
  transactionType: string | null;
  counterparty: string | null;
  activityType: string | null;
  assetType: string | null;
  tokenAddress: string | null;
}

/** A webhook as the management API shows it (no secrets). Times are ISO 8601 with microseconds. */
export interface WebhookRow extends WebhookFilters {
  id: string;
  keyId: string;
  name: string;
  url: string;
  type: WebhookType;
  active: boolean;
  confirmations: number;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

interface RawRow {
  id: string;
  key_id: string;
  name: string;
  url: string;
  type: WebhookType;
  active: boolean;
  chain_ids: (string | number)[] | null;
  transaction_type: string | null;
  counterparty: string | null;
  activity_type: string | null;
  asset_type: string | null;
  token_address: string | null;
  confirmations: number;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

const iso = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as ${column}`;

/** The select list of a `WebhookRow` (secrets excluded), for `returning` and reads alike. */
export const WEBHOOK_COLUMNS = [
  'id::text as id',
  'key_id',
  'name',
  'url',
  'type',
  'active',
  'chain_ids::text[] as chain_ids',
  'transaction_type',
  'counterparty',
  'activity_type',
  'asset_type',
  'token_address',
  'confirmations',
  'disabled_reason',
  iso('created_at'),
  iso('updated_at'),
].join(', ');

/** Converts a row selected with `WEBHOOK_COLUMNS`. */
export function toWebhookRow(raw: Record<string, unknown>): WebhookRow {
  const r = raw as unknown as RawRow;
  return {
    id: r.id,
    keyId: r.key_id,
    name: r.name,
    url: r.url,
    type: r.type,
    active: r.active,
    chainIds: r.chain_ids === null ? null : r.chain_ids.map(Number),
    transactionType: r.transaction_type,
    counterparty: r.counterparty,
    activityType: r.activity_type,
    assetType: r.asset_type,
    tokenAddress: r.token_address,
    confirmations: Number(r.confirmations),
    disabledReason: r.disabled_reason,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
