import type { DerivedBatch } from '../derive/index.js';
import { key20, key1155, pair20, pair1155 } from './balance-keys.js';
import type { Stored20, Stored1155 } from './balance-store.js';
import { pairKey } from './read-balances.js';
import type { ReconcilePlan } from './reconcile-types.js';

type Delta20 = DerivedBatch['erc20Deltas'] extends Map<string, infer D> ? D : never;
type Delta1155 = DerivedBatch['nft1155'] extends Map<string, infer D> ? D : never;

/** What settling a batch's reads needs to know of the reconciler. */
export interface SettleContext {
  /** The batch's last block (where every value was read). */
  at: bigint;
  startBlock: bigint;
  nonConserving: ReadonlySet<string>;
}

/** What the deltas say a pair holds after the batch (unknown for a pair first seen mid-history). */
function expected(ctx: SettleContext, stored: bigint | undefined, delta: bigint) {
  if (stored !== undefined) return stored + delta;
  return ctx.startBlock === 0n ? delta : undefined;
}

function mismatch(
  ctx: SettleContext,
  plan: ReconcilePlan,
  pair: { token: string; wallet: string },
  chain: bigint,
  deltas: bigint,
): void {
  const { token, wallet } = pair;
  if (ctx.nonConserving.has(token) || plan.marks.has(token)) return;
  const code = deltas < 0n ? 'negative_delta' : 'balance_mismatch';
  plan.marks.set(token, {
    reason: `${code}: balanceOf(${wallet}) = ${chain} at block ${ctx.at}, Transfer deltas give ${deltas}`,
    block: ctx.at,
  });
}

/**
 * The batch's ERC20 deltas whose pair was read (`read`, by delta key): the chain's value becomes
 * the pair's absolute balance in the plan; an unreadable pair keeps its delta unless that would go
 * negative (then 0). A value other than the deltas' marks the token.
 */
export function settleDeltas20(
  ctx: SettleContext,
  plan: ReconcilePlan,
  deltas: readonly Delta20[],
  stored: ReadonlyMap<string, bigint>,
  read: ReadonlyMap<string, bigint | null>,
): void {
  for (const d of deltas) {
    const k = key20(d);
    const v = read.get(k);
    const want = expected(ctx, stored.get(k), d.delta);
    if (v === undefined) continue; // not read: the delta applies (checked non-negative before)
    if (v === null) {
      plan.readErrors.set(d.token, `balanceOf(${d.wallet}) unreadable at block ${ctx.at}`);
      if (want === undefined ? d.delta < 0n : want < 0n) plan.absolutes20.set(k, 0n);
      continue;
    }
    plan.absolutes20.set(k, v);
    if (want !== undefined && want !== v) mismatch(ctx, plan, d, v, want);
  }
}

/** `settleDeltas20` for ERC1155 holdings (a difference marks nothing). */
export function settleDeltas1155(
  ctx: SettleContext,
  plan: ReconcilePlan,
  deltas: readonly Delta1155[],
  stored: ReadonlyMap<string, bigint>,
  read: ReadonlyMap<string, bigint | null>,
): void {
  for (const d of deltas) {
    const k = key1155(d);
    const v = read.get(k);
    const want = expected(ctx, stored.get(k), d.delta);
    if (v === undefined) continue;
    if (v === null) {
      plan.readErrors.set(
        d.contract,
        `balanceOf(${d.wallet}, ${d.tokenId}) unreadable at block ${ctx.at}`,
      );
      if (want === undefined ? d.delta < 0n : want < 0n) plan.absolutes1155.set(k, 0n);
      continue;
    }
    plan.absolutes1155.set(k, v);
  }
}

/**
 * Pairs the batch did not touch, read in a catch-up sweep (`values`, by `pairKey`): stored rows
 * the chain disagrees with are updated (an ERC20 difference marks the token), and pairs found
 * holding a balance with no row are inserted.
 */
export function settleSweep(
  ctx: SettleContext,
  plan: ReconcilePlan,
  swept: { erc20: readonly Stored20[]; erc1155: readonly Stored1155[] },
  unknown: readonly { wallet: string; token: string }[],
  values: ReadonlyMap<string, bigint | null>,
): void {
  for (const r of swept.erc20) {
    const v = values.get(pairKey(pair20(r))) ?? null;
    if (v === null) {
      plan.readErrors.set(r.token, `balanceOf(${r.wallet}) unreadable at block ${ctx.at}`);
      continue;
    }
    if (v === r.amount) continue;
    plan.updates20.push({ ...r, amount: v });
    mismatch(ctx, plan, r, v, r.amount);
  }
  for (const r of swept.erc1155) {
    const v = values.get(pairKey(pair1155(r))) ?? null;
    if (v !== null && v !== r.amount) plan.updates1155.push({ ...r, amount: v });
  }
  for (const p of unknown) {
    const v = values.get(pairKey(pair20(p))) ?? null;
    if (v !== null && v > 0n) plan.inserts20.push({ ...p, amount: v });
  }
}

/**
 * Sets the absolute balances a plan decided on the batch's deltas, right before the batch is
 * written (the writer stores an absolute instead of adding the delta).
 *
 * @example
 * const plan = await reconciler.plan(batch, reads, cp.block, head);
 * applyAbsolutes(batch, plan);
 */
export function applyAbsolutes(batch: DerivedBatch, plan: ReconcilePlan): void {
  for (const [k, v] of plan.absolutes20) {
    const d = batch.erc20Deltas.get(k);
    if (d) d.absolute = v;
  }
  for (const [k, v] of plan.absolutes1155) {
    const d = batch.nft1155.get(k);
    if (d) d.absolute = v;
  }
}
