import type { Queryable } from '@sluice/db';
import type { DerivedBatch } from '../derive/index.js';
import { type BulkColumn, bulkInsert } from './bulk-insert.js';
import { iso, s } from './sql-values.js';
import { recordUndo, type UndoScope } from './undo/record-undo.js';

/** Schema of `nft_holdings` (part of the core migration). */
export const nftHoldingsSchema = /* sql */ `
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
`;

const HOLDING_COLUMNS: readonly BulkColumn[] = [
  ['wallet', 'text'],
  ['chain_id', 'int4'],
  ['contract', 'text'],
  ['token_id', 'numeric'],
  ['standard', 'text'],
  ['balance', 'numeric'],
  ['last_acquired', 'timestamptz'],
  ['last_acquired_block', 'int8'],
  ['updated_block', 'int8'],
];

/** Undo keys of holdings: (contract, token id), once each. */
function holdingKeys(items: Iterable<{ contract: string; tokenId: bigint }>): string[][] {
  const keys = new Map<string, string[]>();
  for (const m of items) keys.set(`${m.contract}|${m.tokenId}`, [m.contract, s(m.tokenId)]);
  return [...keys.values()];
}

/** Writes the batch's NFT holdings; returns the wallets that lost an ERC721 to its final owner. */
export async function writeNftHoldings(
  tx: Queryable,
  undo: UndoScope | null,
  chain: number,
  batch: DerivedBatch,
): Promise<string[]> {
  await recordUndo(
    tx,
    undo,
    'nft_holdings',
    holdingKeys([...batch.nft721.values(), ...batch.nft1155.values()]),
  );
  const moves = [...batch.nft721.values()];
  let previousOwners: string[] = [];
  if (moves.length > 0) {
    // ERC721 ownership is absolute: whoever held the id before, the final owner holds it now.
    const { rows } = await tx.query<{ wallet: string }>(
      `delete from nft_holdings h
        using unnest($2::text[], $3::numeric[], $4::text[]) as m(contract, token_id, owner)
        where h.chain_id = $1 and h.contract = m.contract and h.token_id = m.token_id
          and (m.owner is null or h.wallet <> m.owner)
        returning h.wallet`,
      [
        chain,
        moves.map((m) => m.contract),
        moves.map((m) => s(m.tokenId)),
        moves.map((m) => m.owner),
      ],
    );
    previousOwners = rows.map((r) => r.wallet);
    const owned = moves.filter((m) => m.owner !== null);
    await bulkInsert(
      tx,
      'nft_holdings',
      HOLDING_COLUMNS,
      owned.map((m) => [
        m.owner,
        chain,
        m.contract,
        s(m.tokenId),
        'erc721',
        '1',
        iso(m.time),
        s(m.block),
        s(m.block),
      ]),
      `on conflict (wallet, chain_id, contract, token_id) do update
         set balance = 1, last_acquired = excluded.last_acquired,
             last_acquired_block = excluded.last_acquired_block, updated_block = excluded.updated_block`,
    );
  }
  const deltas = [...batch.nft1155.values()];
  if (deltas.length > 0) {
    // Deltas add up; a balance read from the chain (reconciliation) replaces the stored one.
    // Negative deltas go through UPDATE (an insert checks balance >= 0 before ON CONFLICT).
    const minus = deltas.filter((d) => d.absolute === undefined && d.delta < 0n);
    if (minus.length > 0) {
      await tx.query(
        `update nft_holdings h set balance = h.balance + u.d, updated_block = u.b
           from unnest($2::text[], $3::text[], $4::numeric[], $5::numeric[], $6::int8[]) as u(w, c, id, d, b)
          where h.chain_id = $1 and h.wallet = u.w and h.contract = u.c and h.token_id = u.id`,
        [
          chain,
          minus.map((d) => d.wallet),
          minus.map((d) => d.contract),
          minus.map((d) => s(d.tokenId)),
          minus.map((d) => s(d.delta)),
          minus.map((d) => s(d.block)),
        ],
      );
    }
    for (const absolute of [false, true]) {
      const rows = deltas.filter(
        (d) => (d.absolute !== undefined) === absolute && (absolute || d.delta >= 0n),
      );
      await bulkInsert(
        tx,
        'nft_holdings',
        HOLDING_COLUMNS,
        rows.map((d) => [
          d.wallet,
          chain,
          d.contract,
          s(d.tokenId),
          'erc1155',
          s(d.absolute ?? d.delta),
          iso(d.acquired?.time ?? new Date(0)),
          s(d.acquired?.block ?? -1n),
          s(d.block),
        ]),
        `on conflict (wallet, chain_id, contract, token_id) do update
           set balance = ${absolute ? 'excluded.balance' : 'nft_holdings.balance + excluded.balance'},
               last_acquired = case when excluded.last_acquired_block >= 0
                                    then excluded.last_acquired else nft_holdings.last_acquired end,
               last_acquired_block = greatest(nft_holdings.last_acquired_block, excluded.last_acquired_block),
               updated_block = excluded.updated_block`,
      );
    }
    await tx.query(
      `delete from nft_holdings h
        using unnest($2::text[], $3::text[], $4::numeric[]) as d(wallet, contract, token_id)
        where h.wallet = d.wallet and h.chain_id = $1 and h.contract = d.contract
          and h.token_id = d.token_id and h.balance <= 0`,
      [
        chain,
        deltas.map((d) => d.wallet),
        deltas.map((d) => d.contract),
        deltas.map((d) => s(d.tokenId)),
      ],
    );
  }
  return previousOwners;
}

/** An ERC1155 balance read from the chain. */
export interface ReadHolding {
  wallet: string;
  contract: string;
  tokenId: bigint;
  amount: bigint;
}

/** A reconciliation's ERC1155 writes: stored balances that differ from the chain get its value. */
export async function writeReconciledHoldings(
  tx: Queryable,
  undo: UndoScope | null,
  chain: number,
  updates: readonly ReadHolding[],
): Promise<void> {
  if (updates.length === 0) return;
  await recordUndo(tx, undo, 'nft_holdings', holdingKeys(updates));
  const params = [
    chain,
    updates.map((u) => u.wallet),
    updates.map((u) => u.contract),
    updates.map((u) => s(u.tokenId)),
    updates.map((u) => s(u.amount)),
  ];
  const match = 'h.chain_id = $1 and h.wallet = u.w and h.contract = u.c and h.token_id = u.id';
  const from = 'unnest($2::text[], $3::text[], $4::numeric[], $5::numeric[]) as u(w, c, id, a)';
  await tx.query(`delete from nft_holdings h using ${from} where ${match} and u.a = 0`, params);
  await tx.query(
    `update nft_holdings h set balance = u.a from ${from} where ${match} and h.balance <> u.a`,
    params,
  );
}
