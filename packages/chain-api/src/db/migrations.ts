import type { Migration } from '@sluice/db';
import { changeFunctionMigrations } from '../changes/change-migrations.js';
import { reconcileMigrations } from '../reconcile/migrations.js';

/**
 * The indexer's store. Conventions shared by every table:
 * - addresses are lower-case `0x` text; hashes lower-case `0x` text;
 * - single on-chain amounts (one event's value, a token id) are `numeric(78,0)` (fits uint256);
 *   running balances are unconstrained `numeric` so a hostile token minting 2^256-1 twice cannot
 *   overflow the column and wedge the indexer;
 * - every row derived from a block carries `(chain_id, block_number)` so a reorg can delete it;
 * - times are `timestamptz` (block timestamps).
 */
const core = /* sql */ `
-- Block headers of every indexed block. The rows above the chain's finalized height form the
-- unfinalized window that reorg detection compares parent hashes against.
create table blocks (
  chain_id      integer     not null,
  number        bigint      not null,
  hash          text        not null,
  parent_hash   text        not null,
  timestamp     timestamptz not null,
  tx_count      integer     not null default 0,
  primary key (chain_id, number)
);

-- Top-level transactions (from the block bodies + receipts). input is raw calldata.
create table transactions (
  chain_id         integer       not null,
  block_number     bigint        not null,
  tx_index         integer       not null,
  hash             text          not null,
  from_address     text          not null,
  to_address       text,                       -- null for contract creation
  contract_address text,                       -- created contract (receipt), if any
  value            numeric(78,0) not null,
  selector         text,                       -- first 4 bytes of input as 0x + 8 hex, null when input is empty
  input            bytea         not null,
  status           smallint      not null,     -- 1 success, 0 reverted
  gas_used         numeric(78,0) not null,
  effective_gas_price numeric(78,0),
  primary key (chain_id, block_number, tx_index)
);
create index transactions_hash_idx on transactions (hash);

-- Raw receipt logs. By default only those NOT decoded into typed rows (activity, pools, ...): e.g.
-- ERC-1155 URI events and every contract's own events; storeLogs 'all' keeps every log.
create table logs (
  chain_id      integer  not null,
  block_number  bigint   not null,
  tx_index      integer  not null,
  log_index     integer  not null,
  address       text     not null,
  topic0        text,
  topic1        text,
  topic2        text,
  topic3        text,
  data          bytea    not null,
  primary key (chain_id, block_number, log_index)
);

-- Wallet activity feed: one row per (wallet, event) in the wallet's point of view.
-- type:       send | receive | mint | burn | approve | swap | call | transfer
--             (transfer = a self-transfer, from = to = wallet)
-- asset_type: native | erc20 | erc721 | erc1155, null for call
-- from_address/to_address: the movement's parties (approve: owner -> spender, so spender = to_address;
--             swap: trader -> trader; call: tx.from -> tx.to).
-- log_index:  -1 for rows from the transaction itself (call, top-level and internal native value);
-- sub_index:  disambiguates several rows of one wallet at one (tx, log): call 0, top-level native 1,
--             internal native transfers 2.., ERC1155 batch items 0.., swap summary 1000.
-- extra:      call  -> {"function": {signature, name, inputs:[{name,type,value}]} | null, "selector", "status"}
--             swap  -> {from_token_address, from_token_value, to_token_address, to_token_value, pools[], dex}
--             approve (ERC721 ApprovalForAll) -> {"approved": bool, "operator": true}
--             erc20 WETH Deposit/Withdrawal -> {"event": "Deposit"|"Withdrawal"}
--             native internal -> {"internal": true}
-- Pagination: newest first across chains = the unique index below read backwards-in-time; the
-- cursor is the last row's (block_time, chain_id, block_number, tx_index, log_index, sub_index).
create table activity (
  chain_id      integer       not null,
  wallet        text          not null,
  block_time    timestamptz   not null,
  block_number  bigint        not null,
  tx_index      integer       not null,
  log_index     integer       not null,
  sub_index     integer       not null default 0,
  tx_hash       text          not null,
  type          text          not null check (type in ('send','receive','mint','burn','approve','swap','call','transfer')),
  asset_type    text          check (asset_type in ('native','erc20','erc721','erc1155')),
  token_address text,
  from_address  text,
  to_address    text,
  value         numeric(78,0),
  token_id      numeric(78,0),
  extra         jsonb
);
create unique index activity_wallet_feed_idx on activity
  (wallet, block_time desc, chain_id desc, block_number desc, tx_index desc, log_index desc, sub_index desc);
-- Reorg rollback deletes by block range per chain.
create index activity_block_idx on activity (chain_id, block_number);

-- Current ERC20 balance of every (wallet, token) pair ever touched, exactly from Transfer deltas
-- (plus WETH Deposit/Withdrawal on the chain's wrapped native). Zero balances are kept (the wallet
-- touched the token); the API filters amount > 0 when it wants to.
-- updated_block = block of the last transfer that changed it.
create table erc20_balances (
  wallet        text    not null,
  chain_id      integer not null,
  token         text    not null,
  amount        numeric not null,
  updated_block bigint  not null,
  primary key (wallet, chain_id, token)
);

-- Native balance of every address touched by an indexed transaction (sender, recipient, internal
-- transfer parties, fee recipient, withdrawals), refreshed with eth_getBalance at the batch's last block
-- (updated_block = that block).
create table native_balances (
  wallet        text    not null,
  chain_id      integer not null,
  amount        numeric not null,
  updated_block bigint  not null,
  primary key (wallet, chain_id)
);

-- NFTs currently held: ERC721 (balance 1) and ERC1155 (balance > 0). Rows reaching 0 are deleted.
-- last_acquired = block time of the transfer that gave the wallet its current holding.
create table nft_holdings (
  wallet              text          not null,
  chain_id            integer       not null,
  contract            text          not null,
  token_id            numeric(78,0) not null,
  standard            text          not null check (standard in ('erc721','erc1155')),
  balance             numeric       not null,
  last_acquired       timestamptz   not null,
  last_acquired_block bigint        not null,
  updated_block       bigint        not null,
  primary key (wallet, chain_id, contract, token_id)
);
-- Owner lookups per token (ERC721 ownership moves, metadata/sales workers).
create index nft_holdings_token_idx on nft_holdings (chain_id, contract, token_id);

-- Token contracts seen in any ERC20/721/1155 event: metadata fetched once (Multicall3 when deployed).
-- standard: erc20 | erc721 | erc1155 | unknown.  status: pending | ok | partial (some calls reverted) | failed.
-- symbol/name tolerate bytes32-returning tokens (decoded as trimmed UTF-8).
create table tokens (
  chain_id      integer     not null,
  address       text        not null,
  standard      text        not null default 'unknown',
  name          text,
  symbol        text,
  decimals      smallint,
  status        text        not null default 'pending' check (status in ('pending','ok','partial','failed')),
  error         text,
  first_block   bigint      not null,
  fetched_at    timestamptz,
  primary key (chain_id, address)
);

-- DEX pools created by the chain's configured Uniswap v2/v3 factories, with their latest state.
-- v2: reserve0/reserve1 from Sync. v3: sqrt_price_x96/tick/liquidity from Initialize/Swap/Mint/Burn.
create table pools (
  chain_id        integer     not null,
  address         text        not null,
  dex             text        not null check (dex in ('uniswap_v2','uniswap_v3')),
  factory         text        not null,
  token0          text        not null,
  token1          text        not null,
  fee             integer,                      -- v3 fee in hundredths of a bip; v2: null (30 bps)
  tick_spacing    integer,
  created_block   bigint      not null,
  reserve0        numeric,
  reserve1        numeric,
  sqrt_price_x96  numeric,
  tick            integer,
  liquidity       numeric,
  updated_block   bigint,
  updated_time    timestamptz,
  primary key (chain_id, address)
);
create index pools_token0_idx on pools (chain_id, token0);
create index pools_token1_idx on pools (chain_id, token1);

-- Pool state at the end of every block in which it changed (the pricing worker's history input).
create table pool_states (
  chain_id        integer     not null,
  pool            text        not null,
  block_number    bigint      not null,
  block_time      timestamptz not null,
  reserve0        numeric,
  reserve1        numeric,
  sqrt_price_x96  numeric,
  tick            integer,
  liquidity       numeric,
  primary key (chain_id, pool, block_number)
);
create index pool_states_block_idx on pool_states (chain_id, block_number);

-- USD price points per token (unused: the pricing worker writes price_history).
create table prices (
  chain_id      integer          not null,
  token         text             not null,
  time          timestamptz      not null,
  block_number  bigint,
  price_usd     double precision not null,
  pool_size     double precision,
  pool          text,
  primary key (chain_id, token, time)
);

-- NFT metadata per token (filled by the NFT worker). The indexer inserts a 'pending' row when
-- it first sees a token id and re-queues it (status pending, next_attempt now) on ERC-4906 events.
create table nft_metadata (
  chain_id      integer       not null,
  contract      text          not null,
  token_id      numeric(78,0) not null,
  standard      text          not null check (standard in ('erc721','erc1155')),
  uri           text,
  name          text,
  description   text,
  image_url     text,
  attributes    jsonb,
  status        text          not null default 'pending' check (status in ('pending','ok','failed')),
  attempts      integer       not null default 0,
  next_attempt  timestamptz   not null default now(),
  last_error    text,
  fetched_at    timestamptz,
  refresh_block bigint,                         -- block of the last ERC-4906 refresh request
  primary key (chain_id, contract, token_id)
);
create index nft_metadata_queue_idx on nft_metadata (next_attempt) where status <> 'ok';

-- NFT sales: an NFT transfer whose transaction also pays the seller (native, WETH or a stablecoin).
-- price is in payment_token's smallest unit ('native' or a token address), split evenly across the
-- NFTs moved in the same transaction.
create table nft_sales (
  chain_id      integer       not null,
  contract      text          not null,
  token_id      numeric(78,0) not null,
  block_number  bigint        not null,
  block_time    timestamptz   not null,
  tx_hash       text          not null,
  log_index     integer       not null,
  seller        text          not null,
  buyer         text          not null,
  quantity      numeric       not null,
  payment_token text          not null,
  price         numeric       not null,
  primary key (chain_id, block_number, log_index, token_id)
);
create index nft_sales_token_idx on nft_sales (chain_id, contract, token_id, block_number desc);

-- One row per chain: how far the store is consistent (every row at or below indexed_block is final
-- for this chain's view), plus what /health and API-only replicas report.
create table checkpoints (
  chain_id       integer     primary key,
  indexed_block  bigint      not null,
  indexed_hash   text        not null,
  indexed_time   timestamptz,
  head_block     bigint,
  backfill_done  boolean     not null default false,
  capabilities   jsonb,                        -- {traces, blockReceipts, multicall3} probed once
  updated_at     timestamptz not null default now()
);

-- Undo log of the unfinalized window: the rows a batch above the finalized height is about to change,
-- as they were before it (prev = json array of rows, [] when absent). A rollback restores, per key,
-- the earliest snapshot taken after the rollback target. Pruned once batch_from is finalized.
create table reorg_undo (
  seq         bigserial primary key,
  chain_id    integer not null,
  batch_from  bigint  not null,
  tbl         text    not null,
  key         jsonb   not null,
  prev        jsonb   not null
);
create index reorg_undo_chain_idx on reorg_undo (chain_id, batch_from);
`;

/**
 * Chain identity and per-contract probes:
 * - checkpoints.genesis_hash: block 0 of the indexed chain; a node with another genesis under the
 *   same chain id is a replaced chain (indexing stops with a clear error, see `sluice-chain reset`);
 * - checkpoints.halted: why indexing of the chain is stopped (null while it runs), for /health and
 *   API-only replicas;
 * - contract_probes: answers of one-time eth_call checks per contract (`pool`: token0()/token1()
 *   of a Swap emitter, result "token0,token1" or null; `erc721`: ERC-165/ownerOf of a contract
 *   emitting non-indexed Transfers, result "erc721" or null).
 */
// Per (wallet, token) facts the token-holders endpoint serves, kept by the writer so that endpoint
// needs no second index on the (largest) activity table. Existing stores derive them once from
// their activity rows.
const holderFacts = /* sql */ `
alter table erc20_balances
  add column first_acquired timestamptz,
  add column has_sent boolean not null default false;
update erc20_balances b set first_acquired = f.first_time, has_sent = f.sent
  from (select wallet, chain_id, token_address,
               min(block_time) filter (where type in ('receive', 'mint', 'transfer')) as first_time,
               bool_or(type in ('send', 'transfer', 'burn')) as sent
          from activity where asset_type = 'erc20' and token_address is not null
         group by wallet, chain_id, token_address) f
 where b.wallet = f.wallet and b.chain_id = f.chain_id and b.token = f.token_address;
`;

const chainSafety = /* sql */ `
alter table checkpoints add column genesis_hash text;
alter table checkpoints add column halted text;
create table contract_probes (
  chain_id  integer not null,
  address   text    not null,
  probe     text    not null,
  result    text,
  block     bigint  not null,
  primary key (chain_id, address, probe)
);
`;

/** Schema migrations of the indexer's tables, for `migrate(db, chainMigrations)` from `@sluice/db`. */
export const chainMigrations: Migration[] = [
  { id: 'chain-001-core', sql: core },
  { id: 'chain-002-chain-safety', sql: chainSafety },
  { id: 'chain-003-holder-facts', sql: holderFacts },
  ...reconcileMigrations,
  ...changeFunctionMigrations,
];
