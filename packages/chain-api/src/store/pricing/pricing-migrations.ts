import type { Migration } from '@sluice/db';

/**
 * Tables only the pricing worker writes (run after `chainMigrations`). Inputs are the indexer's
 * `pools`, `pool_states`, `tokens`, `erc20_balances` and `checkpoints`.
 */
const pricing = /* sql */ `
-- Current USD price of every token that has a pool against a stablecoin or the wrapped native
-- (plus token = 'native', mirroring the wrapped native). No row: no pool, hence no price.
-- price_usd NULL: the route is under the minimum liquidity (manipulation guard), pool still reported.
-- quote/price_in_quote/quote_liquidity: the first hop in the quote token's units, so a move of the
-- wrapped native's price re-prices every token routed through it with one UPDATE.
create table token_prices (
  chain_id        integer          not null,
  token           text             not null,
  price_usd       double precision,
  pool_size       double precision,
  low_liquidity   boolean          not null,
  pool_address    text,
  pool_type       text check (pool_type in ('uniswap_v2','uniswap_v3')),
  pool_tokens     text[],
  quote           text             not null,
  price_in_quote  double precision not null,
  quote_liquidity double precision not null,
  route           text[]           not null,
  updated_block   bigint           not null,
  updated_at      timestamptz      not null,   -- block time of updated_block
  dirty           boolean          not null default false,  -- set by a reorg rollback: recompute
  primary key (chain_id, token)
);
create index token_prices_quote_idx on token_prices (chain_id, quote);
create index token_prices_dirty_idx on token_prices (chain_id) where dirty;

-- A point whenever a token's pricing pool changes (at most one per token per block); compacted to
-- the last point of each 5-minute bucket once older than an hour and final.
create table price_history (
  chain_id        integer          not null,
  token           text             not null,
  block_number    bigint           not null,
  time            timestamptz      not null,
  price_usd       double precision,
  pool_size       double precision,
  quote           text             not null,
  price_in_quote  double precision not null,
  pool_address    text,
  -- (token, block) is unique on its own; keying by time too lets the primary key serve the
  -- "latest point at or before T" scans (read backwards), saving a second index on every insert.
  primary key (chain_id, token, time, block_number)
);
create index price_history_block_idx on price_history (chain_id, block_number);

-- Per chain: how far pool_states have been turned into prices, and what the queries need to know
-- about the chain's anchors. epoch increments on every reorg rollback (optimistic concurrency).
create table pricing_cursors (
  chain_id        integer     primary key,
  last_block      bigint      not null,
  epoch           bigint      not null default 0,
  wrapped_native  text,
  stablecoins     text[]      not null default '{}',
  compacted_block bigint      not null default -1,  -- history at or below is compacted
  updated_at      timestamptz not null default now()
);
`;

/** Migrations of the pricing worker's tables; run after `chainMigrations`. */
export const pricingMigrations: Migration[] = [{ id: 'pricing-001-prices', sql: pricing }];
