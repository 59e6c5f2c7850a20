import type { Queryable } from '@sluice/db';
import { writeReconciledErc20 } from '../store/balances.js';
import { announceStoreChange, publishStoreChange } from '../store/changes/publish-store-change.js';
import { StoreChangeBuilder } from '../store/changes/store-change-builder.js';
import { setReconciledBlock } from '../store/checkpoints.js';
import { writeReconciledHoldings } from '../store/nft-holdings.js';
import { markNonConserving, setBalanceReadErrors } from '../store/tokens.js';

/** A stored ERC20 balance. */
export interface Stored20 {
  wallet: string;
  token: string;
  amount: bigint;
}

/** A stored ERC1155 holding. */
export interface Stored1155 {
  wallet: string;
  contract: string;
  tokenId: bigint;
  amount: bigint;
}

/** What a batch's reconciliation writes besides the batch's own balance rows. */
export interface ReconcileWrites {
  /** Chain values of pairs the batch did not touch (holder re-reads, catch-up sweep). */
  updates20: Stored20[];
  updates1155: Stored1155[];
  /** Pairs found holding a balance with no event since a mid-history start block (new rows). */
  inserts20: Stored20[];
  /** Tokens newly found not to conserve: reason and block. */
  marks: Map<string, { reason: string; block: bigint }>;
  /** Tokens whose balanceOf could not be read, with what happened. */
  readErrors: Map<string, string>;
  /** New checkpoints.reconciled_block. */
  reconciledBlock: bigint | null;
}

const s = (v: bigint) => v.toString();

/** Reconciliation state of a chain: last fully reconciled block and non-conserving tokens. */
export async function loadReconcileState(
  db: Queryable,
  chainId: number,
): Promise<{ reconciledBlock: bigint | null; nonConserving: Set<string> }> {
  const cp = await db.query<{ reconciled_block: string | null }>(
    'select reconciled_block from checkpoints where chain_id = $1',
    [chainId],
  );
  const tokens = await db.query<{ address: string }>(
    `select address from tokens where chain_id = $1 and balance_model = 'non_conserving'`,
    [chainId],
  );
  const r = cp.rows[0]?.reconciled_block;
  return {
    reconciledBlock: r === null || r === undefined ? null : BigInt(r),
    nonConserving: new Set(tokens.rows.map((t) => t.address)),
  };
}

/** Stored amounts of these ERC20 pairs, keyed `wallet|token` (absent pairs are missing). */
export async function selectStored20(
  db: Queryable,
  chainId: number,
  keys: readonly { wallet: string; token: string }[],
): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  if (keys.length === 0) return out;
  const { rows } = await db.query<{ wallet: string; token: string; amount: string }>(
    `select b.wallet, b.token, b.amount::text as amount from erc20_balances b
       join unnest($2::text[], $3::text[]) as k(w, t) on b.wallet = k.w and b.token = k.t
      where b.chain_id = $1`,
    [chainId, keys.map((k) => k.wallet), keys.map((k) => k.token)],
  );
  for (const r of rows) out.set(`${r.wallet}|${r.token}`, BigInt(r.amount));
  return out;
}

/** Stored balances of these ERC1155 pairs, keyed `wallet|contract|id`. */
export async function selectStored1155(
  db: Queryable,
  chainId: number,
  keys: readonly { wallet: string; contract: string; tokenId: bigint }[],
): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  if (keys.length === 0) return out;
  const { rows } = await db.query<{ wallet: string; contract: string; id: string; b: string }>(
    `select h.wallet, h.contract, h.token_id::text as id, h.balance::text as b from nft_holdings h
       join unnest($2::text[], $3::text[], $4::numeric[]) as k(w, c, id)
         on h.wallet = k.w and h.contract = k.c and h.token_id = k.id
      where h.chain_id = $1`,
    [
      chainId,
      keys.map((k) => k.wallet),
      keys.map((k) => k.contract),
      keys.map((k) => s(k.tokenId)),
    ],
  );
  for (const r of rows) out.set(`${r.wallet}|${r.contract}|${r.id}`, BigInt(r.b));
  return out;
}

/**
 * Up to `limit` holders (every wallet with a row, zero included) of `tokens`, in (token, wallet)
 * order after `after`: a rolling window when a token has more holders than one batch may read.
 */
export async function selectHolders(
  db: Queryable,
  chainId: number,
  tokens: readonly string[],
  after: readonly [token: string, wallet: string] | null,
  limit: number,
): Promise<Stored20[]> {
  const { rows } = await db.query<{ wallet: string; token: string; amount: string }>(
    `select wallet, token, amount::text as amount from erc20_balances
      where chain_id = $1 and token = any($2::text[]) and (token, wallet) > ($3::text, $4::text)
      order by token, wallet limit $5`,
    [chainId, tokens, after?.[0] ?? '', after?.[1] ?? '', limit],
  );
  return rows.map((r) => ({ wallet: r.wallet, token: r.token, amount: BigInt(r.amount) }));
}

/**
 * Pairs a catch-up sweep must read: every ERC20 pair changed after `since` (all when null), every
 * holder of a non-conserving token, and ERC1155 holdings changed after `since`.
 */
export async function selectSweep(
  db: Queryable,
  chainId: number,
  since: bigint | null,
  nonConserving: readonly string[],
): Promise<{ erc20: Stored20[]; erc1155: Stored1155[] }> {
  const from = since === null ? '-1' : s(since);
  const e = await db.query<{ wallet: string; token: string; amount: string }>(
    `select wallet, token, amount::text as amount from erc20_balances
      where chain_id = $1 and (updated_block > $2 or token = any($3::text[]))`,
    [chainId, from, nonConserving],
  );
  const n = await db.query<{ wallet: string; contract: string; id: string; b: string }>(
    `select wallet, contract, token_id::text as id, balance::text as b from nft_holdings
      where chain_id = $1 and standard = 'erc1155' and updated_block > $2`,
    [chainId, from],
  );
  return {
    erc20: e.rows.map((r) => ({ wallet: r.wallet, token: r.token, amount: BigInt(r.amount) })),
    erc1155: n.rows.map((r) => ({
      wallet: r.wallet,
      contract: r.contract,
      tokenId: BigInt(r.id),
      amount: BigInt(r.b),
    })),
  };
}

/**
 * Pairs nobody has a row for yet: every wallet the chain's store knows (ERC20 or native balance)
 * times every ERC20 token it knows (or `tokens`). A chain indexed from a non-zero start block
 * cannot see who held a token before it, and a token that credits without events can pay a wallet
 * no event names: these pairs are read at each catch-up. Null when more than `limit`.
 */
export async function selectUnknownPairs(
  db: Queryable,
  chainId: number,
  limit: number,
  tokens: readonly string[] | null,
): Promise<{ wallet: string; token: string }[] | null> {
  const t = tokens
    ? 'select unnest($3::text[]) as address'
    : `select address from tokens where chain_id = $1 and standard = 'erc20'`;
  const { rows } = await db.query<{ wallet: string; token: string }>(
    `with w as (select wallet from erc20_balances where chain_id = $1
                union select wallet from native_balances where chain_id = $1),
          t as (${t})
     select w.wallet, t.address as token from w cross join t
      where not exists (select 1 from erc20_balances b
                         where b.chain_id = $1 and b.wallet = w.wallet and b.token = t.address)
      limit $2`,
    tokens ? [chainId, limit + 1, tokens] : [chainId, limit + 1],
  );
  return rows.length > limit ? null : rows;
}

/**
 * Writes a batch's reconciliation inside the batch's transaction (after `writeBatch`): the undo
 * snapshot of the extra rows (unfinalized window), their chain values, token marks and
 * read errors, and the reconciled block when it moved from `previous`.
 */
export async function writeReconciled(
  tx: Queryable,
  chainId: number,
  w: ReconcileWrites,
  undo: { batchFrom: bigint } | null,
  previous: bigint | null,
): Promise<void> {
  const change = reconcileChange(chainId, w);
  if (!change.empty) await announceStoreChange(tx);
  const scope = undo ? { chainId, batchFrom: undo.batchFrom } : null;
  await writeReconciledErc20(tx, scope, chainId, w.updates20, w.inserts20, w.reconciledBlock ?? 0n);
  await writeReconciledHoldings(tx, scope, chainId, w.updates1155);
  await markNonConserving(tx, chainId, w.marks);
  await setBalanceReadErrors(tx, chainId, w.readErrors);
  if (w.reconciledBlock !== previous) await setReconciledBlock(tx, chainId, w.reconciledBlock);
  await publishStoreChange(tx, change);
}

/** The wallets and tokens whose answers a reconciliation's writes change. */
function reconcileChange(chainId: number, w: ReconcileWrites): StoreChangeBuilder {
  const change = new StoreChangeBuilder();
  for (const u of [...w.updates20, ...w.inserts20]) {
    change.wallet(chainId, u.wallet).token(chainId, u.token);
  }
  for (const u of w.updates1155) change.wallet(chainId, u.wallet).token(chainId, u.contract);
  for (const token of [...w.marks.keys(), ...w.readErrors.keys()]) change.token(chainId, token);
  return change;
}
