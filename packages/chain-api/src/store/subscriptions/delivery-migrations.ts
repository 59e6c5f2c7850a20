import type { Migration } from '@sluice/db';

/**
 * The webhook outbox: one row per delivery (one webhook, one chain, one block or batch chunk, up
 * to a capped number of items), inserted in the indexer's batch transaction so nothing is queued
 * for data that never committed and a crash after commit loses nothing. `seq` is the commit order:
 * a webhook's deliveries of one chain go out strictly by it. `removal` rows carry the items of a
 * delivered block that a reorg replaced, marked `"removed": true`; a rollback never deletes them.
 *
 * status: pending (waits for its turn, its retry time and the webhook's confirmations), sending
 * (claimed until `claimed_until`: a crashed sender's claim expires and the delivery is sent again
 * with the same id), delivered, failed (retries exhausted), superseded (its block was replaced
 * while an attempt was out: a removal follows it, no more retries).
 */
export const deliveryMigrations: Migration[] = [
  {
    id: 'subscriptions-002-webhook-deliveries',
    sql: `
      create table if not exists webhook_deliveries (
        id uuid primary key default gen_random_uuid(),
        seq bigserial not null unique,
        webhook_id uuid not null references webhooks (id) on delete cascade,
        chain_id integer not null,
        block_number bigint not null,
        block_hash text not null,
        removal boolean not null default false,
        items jsonb not null,
        item_count integer not null,
        status text not null default 'pending'
          check (status in ('pending', 'sending', 'delivered', 'failed', 'superseded')),
        superseded boolean not null default false,
        attempts integer not null default 0,
        next_attempt_at timestamptz not null default now(),
        claimed_until timestamptz,
        last_status integer,
        last_error text,
        created_at timestamptz not null default now(),
        first_sent_at timestamptz,
        delivered_at timestamptz,
        updated_at timestamptz not null default now()
      );
      create index if not exists webhook_deliveries_open_idx
        on webhook_deliveries (webhook_id, chain_id, seq) where status in ('pending', 'sending');
      create index if not exists webhook_deliveries_block_idx
        on webhook_deliveries (chain_id, block_number) where not removal;
      create index if not exists webhook_deliveries_log_idx on webhook_deliveries (webhook_id, seq);
    `,
  },
];
