import type { Migration } from '@sluice/db';

/**
 * Webhook subscriptions (the peer's Subscriptions API): each webhook belongs to the API key that
 * created it; its address list is its own table so lists of 10,000 addresses page and change
 * without rewriting the webhook row, and `webhook_addresses_address_idx` finds every webhook that
 * watches an address when a batch commits.
 *
 * Signing secrets must be readable to sign deliveries, so they are stored as given (never logged,
 * returned only at creation and rotation); `previous_secret` keeps verifying until
 * `previous_secret_expires_at` after a rotation.
 */
export const subscriptionMigrations: Migration[] = [
  {
    id: 'subscriptions-001-webhooks',
    sql: `
      create table if not exists webhooks (
        id uuid primary key,
        key_id text not null references api_keys (id) on delete cascade,
        name text not null,
        url text not null,
        type text not null check (type in ('balances', 'activities', 'transactions')),
        active boolean not null default true,
        chain_ids bigint[],
        transaction_type text check (transaction_type in ('sender', 'receiver')),
        counterparty text,
        activity_type text,
        asset_type text,
        token_address text,
        confirmations integer not null default 0 check (confirmations >= 0),
        secret text not null,
        previous_secret text,
        previous_secret_expires_at timestamptz,
        disabled_reason text,
        failing_since timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index if not exists webhooks_key_idx on webhooks (key_id, created_at, id);
      create table if not exists webhook_addresses (
        webhook_id uuid not null references webhooks (id) on delete cascade,
        address text not null,
        primary key (webhook_id, address)
      );
      create index if not exists webhook_addresses_address_idx on webhook_addresses (address);
    `,
  },
];
