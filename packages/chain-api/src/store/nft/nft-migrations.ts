import type { Migration } from '@sluice/db';
import { metadataLimitMigrations } from './metadata-limit-migrations.js';

/**
 * Tables only the NFT worker writes; run after the indexer's `chainMigrations` (they index its
 * `nft_metadata` table). Addresses lower-case text, like everywhere in the store.
 */
const collections = /* sql */ `
-- One row per NFT contract seen: collection name/symbol (from the indexer's tokens table or the
-- worker's own name()/symbol() calls), the first time it was seen, and its spam score.
-- spam_explanations is the peer's explanations array ([{feature, value, feature_score, feature_weight}]).
-- scored_at null = (re)score soon: set when a collection's metadata, sales or override change.
create table nft_collections (
  chain_id           integer     not null,
  contract           text        not null,
  standard           text        check (standard in ('erc721','erc1155')),
  name               text,
  symbol             text,
  info_status        text        not null default 'pending' check (info_status in ('pending','ok','failed')),
  info_attempts      integer     not null default 0,
  info_next_attempt  timestamptz not null default now(),
  first_seen_at      timestamptz,
  spam_score         smallint    check (spam_score between 0 and 100),
  is_spam            boolean     not null default false,
  spam_explanations  jsonb,
  scored_at          timestamptz,
  primary key (chain_id, contract)
);
create index nft_collections_info_queue_idx on nft_collections (info_next_attempt) where info_status <> 'ok';
create index nft_collections_score_queue_idx on nft_collections (scored_at nulls first);

-- Operator decisions per contract: 'spam' forces is_spam (score 100), 'not_spam' clears it (score 0).
create table nft_spam_overrides (
  chain_id        integer     not null,
  contract        text        not null,
  classification  text        not null check (classification in ('spam','not_spam')),
  note            text,
  created_at      timestamptz not null default now(),
  primary key (chain_id, contract)
);

-- URI re-checks of fetched tokens (the indexer's queue index covers only status <> 'ok').
create index nft_metadata_recheck_idx on nft_metadata (next_attempt) where status = 'ok';
`;

// Collections whose first-seen time is still unknown (the back-fill reads only these).
const unseen = /* sql */ `
create index nft_collections_unseen_idx on nft_collections (chain_id, contract) where first_seen_at is null;
`;

// How far each chain's ERC-1155 URI events have been read from the indexer's logs table.
const cursors = /* sql */ `
create table nft_cursors (
  chain_id         integer primary key,
  uri_event_block  bigint  not null
);
`;

// Collections are discovered from the indexer's NFT transfers (activity rows) read from a per-chain
// cursor; a transfer newer than the last score asks for a re-score (rescore_after: when, debounced).
const discovery = /* sql */ `
create table nft_discovery_cursors (
  chain_id  integer primary key,
  block     bigint  not null,
  hash      text    not null          -- the cursor block's hash when read ('' if not stored)
);
alter table nft_collections add column rescore_after timestamptz;
create index nft_collections_rescore_idx on nft_collections (rescore_after) where rescore_after is not null;
`;

/** Schema migrations of the NFT worker, for `migrate(db, nftMigrations)` after `chainMigrations`. */
export const nftMigrations: Migration[] = [
  { id: 'nft-001-collections', sql: collections },
  { id: 'nft-002-unseen-collections', sql: unseen },
  { id: 'nft-003-cursors', sql: cursors },
  { id: 'nft-004-discovery', sql: discovery },
  // Last of this list (not of the store's): the worker, which callers migrate with this list
  // alone after chainMigrations, reads these columns. Stores apply migrations by id, so an
  // existing store gets it on its next start.
  ...metadataLimitMigrations,
];
