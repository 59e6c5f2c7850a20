import type { Queryable } from '@sluice/db';
import type { DerivedBatch } from '../derive/index.js';
import { bulkInsert } from './bulk-insert.js';
import { iso, s } from './sql-values.js';

/** Schema of `nft_sales` (part of the core migration). */
export const nftSalesSchema = /* sql */ `
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
`;

/** Inserts the batch's NFT sales (rows already stored are kept). */
export async function writeNftSales(
  tx: Queryable,
  chain: number,
  batch: DerivedBatch,
): Promise<void> {
  await bulkInsert(
    tx,
    'nft_sales',
    [
      ['chain_id', 'int4'],
      ['contract', 'text'],
      ['token_id', 'numeric'],
      ['block_number', 'int8'],
      ['block_time', 'timestamptz'],
      ['tx_hash', 'text'],
      ['log_index', 'int4'],
      ['seller', 'text'],
      ['buyer', 'text'],
      ['quantity', 'numeric'],
      ['payment_token', 'text'],
      ['price', 'numeric'],
    ],
    batch.sales.map((x) => [
      chain,
      x.contract,
      s(x.tokenId),
      s(x.blockNumber),
      iso(x.blockTime),
      x.txHash,
      x.logIndex,
      x.seller,
      x.buyer,
      s(x.quantity),
      x.paymentToken,
      s(x.price),
    ]),
    'on conflict do nothing',
  );
}
