import type { Queryable } from '@sluice/db';
import type { DerivedBatch } from '../derive/index.js';
import { type BulkColumn, bulkInsert } from './bulk-insert.js';
import { iso, s } from './sql-values.js';
import { recordUndo, type UndoScope } from './undo/record-undo.js';

/** Schema of `erc20_balances` and `native_balances` (part of the core migration). */
export const balancesSchema = /* sql */ `
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
`;

/** Undo keys of ERC20 balances: (wallet, token). */
const pairKeys = (rows: readonly { wallet: string; token: string }[]) =>
  rows.map((r) => [r.wallet, r.token]);

const ERC20_COLUMNS: readonly BulkColumn[] = [
  ['wallet', 'text'],
  ['chain_id', 'int4'],
  ['token', 'text'],
  ['amount', 'numeric'],
  ['updated_block', 'int8'],
  ['first_acquired', 'timestamptz'],
  ['has_sent', 'bool'],
];

/**
 * Applies the batch's ERC20 deltas (and balances read from the chain, which replace the stored
 * ones), with the holder facts the token-holders endpoint serves.
 */
export async function writeErc20Deltas(
  tx: Queryable,
  undo: UndoScope | null,
  chain: number,
  batch: DerivedBatch,
): Promise<void> {
  const erc20 = [...batch.erc20Deltas.values()];
  await recordUndo(tx, undo, 'erc20_balances', pairKeys(erc20));
  const facts = (d: (typeof erc20)[number]) => [
    d.acquired ? iso(d.acquired) : null,
    d.sent === true,
  ];
  // Batches are written in block order: a stored first receipt is earlier than this batch's.
  const keepFacts = `first_acquired = coalesce(erc20_balances.first_acquired, excluded.first_acquired),
       has_sent = erc20_balances.has_sent or excluded.has_sent`;
  // Amounts are CHECKed non-negative and an insert checks its row before ON CONFLICT: negative
  // deltas go through UPDATE (the reconciler made sure they leave the balance >= 0).
  await bulkInsert(
    tx,
    'erc20_balances',
    ERC20_COLUMNS,
    erc20
      .filter((d) => d.absolute === undefined && d.delta >= 0n)
      .map((d) => [d.wallet, chain, d.token, s(d.delta), s(d.block), ...facts(d)]),
    `on conflict (wallet, chain_id, token) do update
       set amount = erc20_balances.amount + excluded.amount, updated_block = excluded.updated_block,
       ${keepFacts}`,
  );
  const minus = erc20.filter((d) => d.absolute === undefined && d.delta < 0n);
  if (minus.length > 0) {
    await tx.query(
      `update erc20_balances b set amount = b.amount + u.d, updated_block = u.b,
              first_acquired = coalesce(b.first_acquired, u.fa), has_sent = b.has_sent or u.hs
         from unnest($2::text[], $3::text[], $4::numeric[], $5::int8[], $6::timestamptz[], $7::bool[])
           as u(w, t, d, b, fa, hs)
        where b.chain_id = $1 and b.wallet = u.w and b.token = u.t`,
      [
        chain,
        minus.map((d) => d.wallet),
        minus.map((d) => d.token),
        minus.map((d) => s(d.delta)),
        minus.map((d) => s(d.block)),
        minus.map((d) => (d.acquired ? iso(d.acquired) : null)),
        minus.map((d) => d.sent === true),
      ],
    );
  }
  // Pairs read from the chain (reconciliation, src/reconcile): the balance at the batch's last
  // block is the truth.
  await bulkInsert(
    tx,
    'erc20_balances',
    ERC20_COLUMNS,
    erc20
      .filter((d) => d.absolute !== undefined)
      .map((d) => [d.wallet, chain, d.token, s(d.absolute as bigint), s(d.block), ...facts(d)]),
    `on conflict (wallet, chain_id, token) do update
       set amount = excluded.amount, updated_block = excluded.updated_block, ${keepFacts}`,
  );
}

/** Stores native balances read at `block` (replacing the stored ones). */
export async function writeNativeBalances(
  tx: Queryable,
  undo: UndoScope | null,
  chain: number,
  balances: ReadonlyMap<string, bigint>,
  block: bigint,
): Promise<void> {
  await recordUndo(
    tx,
    undo,
    'native_balances',
    [...balances.keys()].map((w) => [w]),
  );
  const to = s(block);
  await bulkInsert(
    tx,
    'native_balances',
    [
      ['wallet', 'text'],
      ['chain_id', 'int4'],
      ['amount', 'numeric'],
      ['updated_block', 'int8'],
    ],
    [...balances].map(([wallet, amount]) => [wallet, chain, s(amount), to]),
    `on conflict (wallet, chain_id) do update
       set amount = excluded.amount, updated_block = excluded.updated_block`,
  );
}

/** A balance read from the chain. */
export interface ReadBalance {
  wallet: string;
  token: string;
  amount: bigint;
}

/** Stores ERC20 balances read from the chain at `block` (replacing the stored ones). */
export async function writeReadErc20Balances(
  tx: Queryable,
  undo: UndoScope | null,
  chain: number,
  balances: readonly ReadBalance[],
  block: bigint,
): Promise<void> {
  await recordUndo(tx, undo, 'erc20_balances', pairKeys(balances));
  await bulkInsert(
    tx,
    'erc20_balances',
    ERC20_COLUMNS.slice(0, 5),
    balances.map((h) => [h.wallet, chain, h.token, s(h.amount), s(block)]),
    `on conflict (wallet, chain_id, token) do update set amount = excluded.amount,
       updated_block = excluded.updated_block`,
  );
}

/**
 * A reconciliation's ERC20 writes: stored balances that differ from the chain get its value,
 * pairs nobody had a row for are inserted at `block`.
 */
export async function writeReconciledErc20(
  tx: Queryable,
  undo: UndoScope | null,
  chain: number,
  updates: readonly ReadBalance[],
  inserts: readonly ReadBalance[],
  block: bigint,
): Promise<void> {
  await recordUndo(tx, undo, 'erc20_balances', pairKeys([...updates, ...inserts]));
  if (updates.length > 0) {
    await tx.query(
      `update erc20_balances b set amount = u.a
         from unnest($2::text[], $3::text[], $4::numeric[]) as u(w, t, a)
        where b.chain_id = $1 and b.wallet = u.w and b.token = u.t and b.amount <> u.a`,
      [
        chain,
        updates.map((u) => u.wallet),
        updates.map((u) => u.token),
        updates.map((u) => s(u.amount)),
      ],
    );
  }
  if (inserts.length > 0) {
    await tx.query(
      `insert into erc20_balances (wallet, chain_id, token, amount, updated_block)
       select u.w, $1, u.t, u.a, $5 from unnest($2::text[], $3::text[], $4::numeric[]) as u(w, t, a)
       on conflict (wallet, chain_id, token) do nothing`,
      [
        chain,
        inserts.map((u) => u.wallet),
        inserts.map((u) => u.token),
        inserts.map((u) => s(u.amount)),
        s(block),
      ],
    );
  }
}
