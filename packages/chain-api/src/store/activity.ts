import type { Queryable } from '@sluice/db';
import type { DerivedBatch } from '../derive/index.js';
import { bulkInsert } from './bulk-insert.js';
import { indexDefinition } from './index-definition.js';
import { isoMemo, s } from './sql-values.js';

/**
 * A wallet's feed, newest first across chains: a page is one range scan of this index. Unique: a
 * duplicate row fails its batch (or, deferred, the build). No write path reads it, so a cold
 * backfill may build it at the end (src/store/deferred-indexes.ts).
 */
export const activityFeedIndex =
  indexDefinition(`create unique index if not exists activity_wallet_feed_idx on activity
  (wallet, block_time desc, chain_id desc, block_number desc, tx_index desc, log_index desc, sub_index desc)`);

/** Schema of `activity` (part of the core migration). */
export const activitySchema = /* sql */ `
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
${activityFeedIndex.create};
-- Reorg rollback deletes by block range per chain.
create index activity_block_idx on activity (chain_id, block_number);
`;

/** Inserts the batch's wallet activity rows; `append` is the conflict clause. */
export async function writeActivity(
  tx: Queryable,
  chain: number,
  batch: DerivedBatch,
  append: string,
): Promise<void> {
  const activityTime = isoMemo();
  await bulkInsert(
    tx,
    'activity',
    [
      ['chain_id', 'int4'],
      ['wallet', 'text'],
      ['block_time', 'timestamptz'],
      ['block_number', 'int8'],
      ['tx_index', 'int4'],
      ['log_index', 'int4'],
      ['sub_index', 'int4'],
      ['tx_hash', 'text'],
      ['type', 'text'],
      ['asset_type', 'text'],
      ['token_address', 'text'],
      ['from_address', 'text'],
      ['to_address', 'text'],
      ['value', 'numeric'],
      ['token_id', 'numeric'],
      ['extra', 'jsonb'],
    ],
    batch.activity.map((a) => [
      chain,
      a.wallet,
      activityTime(a.blockTime),
      s(a.blockNumber),
      a.txIndex,
      a.logIndex,
      a.subIndex,
      a.txHash,
      a.type,
      a.assetType,
      a.tokenAddress,
      a.from,
      a.to,
      a.value === null ? null : s(a.value),
      a.tokenId === null ? null : s(a.tokenId),
      a.extra === null ? null : JSON.stringify(a.extra),
    ]),
    append,
  );
}
