import type { Migration } from '@sluice/db';

/**
 * Who tracks a wallets-mode wallet: one row per (API key, wallet). A key's least recently
 * requested wallets beyond its cap lose only that key's row; a wallet (its `tracked_wallets` row
 * and its data) is dropped once no key tracks it, so one key can never evict another's wallets.
 * `key_id` '' is the operator (CLI, or an API without keys). Existing wallets become the
 * operator's. `priority` orders the backfill queue: 0 = a read asked for the wallet, 1 = bulk
 * pre-tracking.
 */
const owners = /* sql */ `
create table tracked_wallet_owners (
  chain_id      integer     not null,
  key_id        text        not null,
  wallet        text        not null,
  requested_at  timestamptz not null default now(),
  primary key (chain_id, key_id, wallet)
);
create index tracked_wallet_owners_wallet_idx on tracked_wallet_owners (chain_id, wallet);
create index tracked_wallet_owners_lru_idx
  on tracked_wallet_owners (chain_id, key_id, requested_at desc, wallet);
insert into tracked_wallet_owners (chain_id, key_id, wallet, requested_at)
  select chain_id, '', wallet, requested_at from tracked_wallets;
alter table tracked_wallets add column priority smallint not null default 0;
drop index tracked_wallets_unready_idx;
create index tracked_wallets_unready_idx
  on tracked_wallets (chain_id, priority, created_at) where status <> 'ready';
`;

/** Appended at the end of the store's migrations. */
export const walletOwnerMigrations: Migration[] = [
  { id: 'chain-wallets-003-tracked-wallet-owners', sql: owners },
];
