import type { Queryable } from '@sluice/db';
import type { DerivedBatch } from '../../derive/index.js';
import { s } from '../sql-values.js';
import { recordUndo, type UndoScope } from '../undo/record-undo.js';

/** A wallet's balances read from the chain at one block (what a backfill commits). */
export interface WalletBalances {
  block: bigint;
  native: bigint;
  /** token -> balanceOf (null: unreadable). */
  erc20: Map<string, bigint | null>;
  /** `${contract}|${id}` -> balanceOf(wallet, id) (null: unreadable). */
  erc1155: Map<string, bigint | null>;
  /** `${contract}|${id}` of ERC721 ids the wallet owns at `block`. */
  erc721: Set<string>;
}

/**
 * Writes a backfilled wallet's balances inside the commit transaction: the chain's values at
 * `b.block` replace what the head follower's deltas gave, Transfer-derived facts (first receipt,
 * has sent) merge with the stored ones, an unreadable ERC20 keeps its deltas floored at 0.
 *
 * @example
 * await writeWalletBalances(tx, null, chainId, wallet, batch, balances);
 */
export async function writeWalletBalances(
  tx: Queryable,
  undo: UndoScope | null,
  chainId: number,
  wallet: string,
  batch: DerivedBatch,
  b: WalletBalances,
): Promise<void> {
  const at = s(b.block);
  await recordUndo(tx, undo, 'native_balances', [[wallet]]);
  await recordUndo(
    tx,
    undo,
    'erc20_balances',
    [...b.erc20.keys()].map((token) => [wallet, token]),
  );
  await recordUndo(tx, undo, 'nft_holdings', [
    ...[...b.erc1155.keys()].map((k) => k.split('|')),
    ...[...batch.nft721.values()].map((m) => [m.contract, s(m.tokenId)]),
  ]);
  await tx.query(
    `insert into native_balances (wallet, chain_id, amount, updated_block) values ($1, $2, $3, $4)
     on conflict (wallet, chain_id) do update set amount = excluded.amount, updated_block = excluded.updated_block`,
    [wallet, chainId, s(b.native), at],
  );
  const deltas = new Map([...batch.erc20Deltas.values()].map((d) => [d.token, d]));
  const e20 = [...b.erc20].flatMap(([token, v]) => {
    const d = deltas.get(token);
    // Unreadable: the history's deltas floored at 0; a pair only the follower stored keeps its row.
    const amount = v ?? (d ? (d.delta > 0n ? d.delta : 0n) : null);
    if (amount === null) return [];
    return [
      { token, amount, acquired: d?.acquired?.toISOString() ?? null, sent: d?.sent === true },
    ];
  });
  await tx.query(
    `insert into erc20_balances as b (wallet, chain_id, token, amount, updated_block, first_acquired, has_sent)
     select $1, $2, u.t, u.a, $3, u.fa, u.hs
       from unnest($4::text[], $5::numeric[], $6::timestamptz[], $7::bool[]) as u(t, a, fa, hs)
     on conflict (wallet, chain_id, token) do update
       set amount = excluded.amount, updated_block = excluded.updated_block,
           first_acquired = least(b.first_acquired, excluded.first_acquired),
           has_sent = b.has_sent or excluded.has_sent`,
    [
      wallet,
      chainId,
      at,
      e20.map((r) => r.token),
      e20.map((r) => s(r.amount)),
      e20.map((r) => r.acquired),
      e20.map((r) => r.sent),
    ],
  );
  const ids = new Map([...batch.nft1155.values()].map((d) => [`${d.contract}|${d.tokenId}`, d]));
  const e1155 = [...b.erc1155]
    .filter(([, v]) => v !== null)
    .map(([k, v]) => {
      const [contract, id] = k.split('|') as [string, string];
      const d = ids.get(k);
      return { contract, id, amount: v as bigint, acquired: d?.acquired ?? null };
    });
  await tx.query(
    `insert into nft_holdings as h (wallet, chain_id, contract, token_id, standard, balance,
                                    last_acquired, last_acquired_block, updated_block)
     select $1, $2, u.c, u.id, 'erc1155', u.a, coalesce(u.t, 'epoch'::timestamptz), coalesce(u.b, -1), $3
       from unnest($4::text[], $5::numeric[], $6::numeric[], $7::timestamptz[], $8::int8[]) as u(c, id, a, t, b)
      where u.a > 0
     on conflict (wallet, chain_id, contract, token_id) do update
       set balance = excluded.balance, updated_block = excluded.updated_block,
           last_acquired = case when excluded.last_acquired_block > h.last_acquired_block
                                then excluded.last_acquired else h.last_acquired end,
           last_acquired_block = greatest(h.last_acquired_block, excluded.last_acquired_block)`,
    [
      wallet,
      chainId,
      at,
      e1155.map((r) => r.contract),
      e1155.map((r) => r.id),
      e1155.map((r) => s(r.amount)),
      e1155.map((r) => r.acquired?.time.toISOString() ?? null),
      e1155.map((r) => (r.acquired ? s(r.acquired.block) : null)),
    ],
  );
  const zero = e1155.filter((r) => r.amount === 0n);
  if (zero.length > 0) {
    await tx.query(
      `delete from nft_holdings h using unnest($3::text[], $4::numeric[]) as u(c, id)
        where h.chain_id = $2 and h.wallet = $1 and h.contract = u.c and h.token_id = u.id`,
      [wallet, chainId, zero.map((r) => r.contract), zero.map((r) => r.id)],
    );
  }
  const moves = [...batch.nft721.values()].filter((m) =>
    b.erc721.has(`${m.contract}|${m.tokenId}`),
  );
  await tx.query(
    `insert into nft_holdings (wallet, chain_id, contract, token_id, standard, balance,
                               last_acquired, last_acquired_block, updated_block)
     select $1, $2, u.c, u.id, 'erc721', 1, u.t, u.b, u.b
       from unnest($3::text[], $4::numeric[], $5::timestamptz[], $6::int8[]) as u(c, id, t, b)
     on conflict (wallet, chain_id, contract, token_id) do nothing`,
    [
      wallet,
      chainId,
      moves.map((m) => m.contract),
      moves.map((m) => s(m.tokenId)),
      moves.map((m) => m.time.toISOString()),
      moves.map((m) => s(m.block)),
    ],
  );
}
