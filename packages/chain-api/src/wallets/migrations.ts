import type { Migration } from '@sluice/db';

/**
 * Wallets mode: the wallets a chain in `"mode": "wallets"` keeps rows for. The head
 * follower (leader) keeps every tracked wallet's rows for blocks above `handover_block`; the
 * wallet's backfill writes its history up to and including `handover_block` in one transaction.
 * `generation` moves whenever the wallet's data is dropped (reorg below the handover, eviction),
 * so a backfill started before cannot commit.
 */
const trackedWallets = /* sql */ `
create table tracked_wallets (
  chain_id        integer     not null,
  wallet          text        not null,
  status          text        not null default 'pending'
                    check (status in ('pending', 'backfilling', 'ready', 'failed')),
  -- Set by the leader: the follower covers blocks > handover_block, the backfill the rest.
  handover_block  bigint,
  generation      integer     not null default 0,
  -- The block the backfill read the wallet's balances at (a reorg below it re-runs the backfill).
  balances_block  bigint,
  -- How the history was found: ots | trace | logs (logs: top-level calls without logs are missed).
  discovery       text,
  warning         text,
  -- Progress of the running backfill (phase, counts) and its last error.
  progress        jsonb,
  error           text,
  attempts        integer     not null default 0,
  requested_at    timestamptz not null default now(),
  created_at      timestamptz not null default now(),
  ready_at        timestamptz,
  primary key (chain_id, wallet)
);
-- Least-recently-requested eviction.
create index tracked_wallets_lru_idx on tracked_wallets (chain_id, requested_at);
-- The leader polls the wallets still to hand over or backfill between every two batches.
create index tracked_wallets_unready_idx on tracked_wallets (chain_id) where status <> 'ready';
`;

/**
 * The pool bootstrap of a wallets-mode chain (src/wallets/pool-bootstrap.ts): one row per commit
 * of found pools, read at the checkpoint `block`. The latest row says how far the scan of the
 * factories' pools (up to `target_block`) is committed; rows above the checkpoint after a
 * rollback are deleted (their pools were undone with the rollback).
 */
const poolBootstrap = /* sql */ `
create table pool_bootstrap_commits (
  seq             bigserial   primary key,
  chain_id        integer     not null,
  block           bigint      not null,
  block_time      timestamptz not null,
  target_block    bigint      not null,
  scanned_block   bigint      not null,
  pools           integer     not null,
  done            boolean     not null,
  committed_at    timestamptz not null default now()
);
create index pool_bootstrap_commits_chain_idx on pool_bootstrap_commits (chain_id, block);
`;

/** Appended to the store's migrations (after the API's). */
export const walletsMigrations: Migration[] = [
  { id: 'chain-wallets-001-tracked-wallets', sql: trackedWallets },
  { id: 'chain-wallets-002-pool-bootstrap', sql: poolBootstrap },
];
