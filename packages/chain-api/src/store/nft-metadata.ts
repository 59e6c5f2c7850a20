import type { Queryable } from '@sluice/db';
import type { DerivedBatch } from '../derive/index.js';
import { bulkInsert } from './bulk-insert.js';
import { s } from './sql-values.js';

/** Schema of `nft_metadata` (part of the core migration; the NFT worker's columns later). */
export const nftMetadataSchema = /* sql */ `
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
`;

/**
 * Queues metadata of the token ids the batch first saw ('pending' rows, kept when present) and
 * re-queues the ranges ERC-4906 events asked to refresh.
 */
export async function queueNftMetadata(
  tx: Queryable,
  chain: number,
  batch: DerivedBatch,
): Promise<void> {
  await bulkInsert(
    tx,
    'nft_metadata',
    [
      ['chain_id', 'int4'],
      ['contract', 'text'],
      ['token_id', 'numeric'],
      ['standard', 'text'],
    ],
    [...batch.nfts.values()].map((n) => [chain, n.contract, s(n.tokenId), n.standard]),
    'on conflict (chain_id, contract, token_id) do nothing',
  );
  for (const r of batch.metadataRefresh) {
    await tx.query(
      `update nft_metadata set status = 'pending', next_attempt = now(), attempts = 0,
              refresh_block = $5
        where chain_id = $1 and contract = $2 and token_id between $3 and $4`,
      [chain, r.contract, s(r.fromTokenId), s(r.toTokenId), s(r.block)],
    );
  }
}
