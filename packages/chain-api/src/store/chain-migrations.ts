import type { Migration } from '@sluice/db';
import { activitySchema } from './activity.js';
import { balancesSchema } from './balances.js';
import { chainDataSchema } from './chain-data.js';
import { changeFunctionMigrations } from './changes/change-migrations.js';
import { checkpointsSchema } from './checkpoints.js';
import { deferredIndexesMigrations } from './deferred-indexes.js';
import { nftHoldingsSchema } from './nft-holdings.js';
import { nftMetadataSchema } from './nft-metadata.js';
import { nftSalesSchema } from './nft-sales.js';
import { poolsSchema } from './pools.js';
import { reconcileMigrations } from './reconcile-migrations.js';
import { tokensSchema } from './tokens.js';
import { undoLogSchema } from './undo/record-undo.js';

/** The old USD price points table (superseded by pricing's price_history; dropped by chain-005). */
const pricesSchema = /* sql */ `
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
`;

/**
 * The indexer's store. Conventions shared by every table:
 * - addresses are lower-case `0x` text; hashes lower-case `0x` text;
 * - single on-chain amounts (one event's value, a token id) are `numeric(78,0)` (fits uint256);
 *   running balances are unconstrained `numeric` so a hostile token minting 2^256-1 twice cannot
 *   overflow the column and wedge the indexer;
 * - every row derived from a block carries `(chain_id, block_number)` so a reorg can delete it;
 * - times are `timestamptz` (block timestamps).
 */
const core = [
  chainDataSchema,
  activitySchema,
  balancesSchema,
  nftHoldingsSchema,
  tokensSchema,
  poolsSchema,
  pricesSchema,
  nftMetadataSchema,
  nftSalesSchema,
  checkpointsSchema,
  undoLogSchema,
].join('');

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
  // Nothing reads or writes `prices` (price points live in pricing's price_history).
  { id: 'chain-005-drop-prices', sql: 'drop table if exists prices;' },
  // Secondary indexes a cold backfill builds at the end.
  ...deferredIndexesMigrations,
];
