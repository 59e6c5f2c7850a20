import type { Database, Queryable } from '@sluice/db';
import type { Logger } from 'pino';
import type { DerivedBatch } from '../derive/index.js';
import type { RpcClient } from '../rpc/index.js';
import { key20, key1155, pair20, pair1155 } from './balance-keys.js';
import {
  loadReconcileState,
  type Stored20,
  type Stored1155,
  selectHolders,
  selectStored20,
  selectStored1155,
  selectSweep,
  selectUnknownPairs,
  writeReconciled,
} from './balance-store.js';
import { type BalancePair, pairKey, readBalanceMap } from './read-balances.js';
import type {
  BatchReads,
  ReconcileOptions,
  ReconcilePlan,
  ReconcileStatus,
} from './reconcile-types.js';
import { settleDeltas20, settleDeltas1155, settleSweep } from './settle-reads.js';
import { applyWrapperMoves } from './wrapper-moves.js';

/**
 * Makes stored balances equal the chain's `balanceOf`: reads touched pairs near the
 * head (in `prepare`, overlapping the next fetch), guards every delta that would go negative with
 * an immediate read, sweeps every changed pair once when a backfill reaches the head, re-reads all
 * holders of tokens that do not conserve, and marks those tokens in the store.
 *
 * @example
 * const reads = await reconciler.prepare(batch, to, following, standardOf);
 * const plan = await reconciler.plan(batch, reads, checkpointBlock, head);
 * applyAbsolutes(batch, plan); // the plan's absolute balances onto the batch's deltas
 * await db.transaction(async (tx) => { await writeBatch(tx, input); await reconciler.apply(tx, plan, batch, undo); });
 * reconciler.committed(plan);
 */
export class Reconciler {
  private readonly opts: ReconcileOptions;
  private multicall3: string | null = null;
  private reconciledBlock: bigint | null = null;
  private nonConserving = new Set<string>();
  private holderCursor: [string, string] | null = null;
  private lastHolderRead: bigint | null = null;
  private readonly totals = { reads: 0, batches: 0, lastReads: 0, lastCalls: 0 };

  constructor(
    private readonly db: Database,
    private readonly rpc: RpcClient,
    private readonly chainId: number,
    private readonly startBlock: bigint,
    private readonly log: Logger,
    options: Partial<ReconcileOptions> = {},
  ) {
    this.opts = {
      enabled: options.enabled ?? true,
      everyBlocks: Math.max(1, options.everyBlocks ?? 1),
      maxHolderReads: Math.max(1, options.maxHolderReads ?? 20_000),
      maxDiscoveryPairs: Math.max(0, options.maxDiscoveryPairs ?? 50_000),
      backfill: options.backfill ?? 'end',
    };
  }

  /**
   * Loads the chain's state (after taking the lock, a failure or a rollback); `checkpoint` is the
   * store's indexed block. An empty store indexed from genesis is trivially reconciled; one
   * started mid-history is not (its first catch-up discovers balances held before the start).
   */
  async init(multicall3: string | null, checkpoint: bigint): Promise<void> {
    this.multicall3 = multicall3;
    const st = await loadReconcileState(this.db, this.chainId);
    this.reconciledBlock =
      st.reconciledBlock === null && this.startBlock === 0n && checkpoint < 0n
        ? checkpoint
        : st.reconciledBlock;
    this.nonConserving = st.nonConserving;
    this.holderCursor = null;
  }

  /**
   * Runs ahead of the writer: settles WETH9-clone events, then reads the batch's touched pairs at
   * `to` when following the head (or in `batch` backfill mode), plus holders of non-conserving
   * tokens when their turn comes; in deep backfill only first-seen pairs of a chain indexed from a
   * non-zero start block are read. One Multicall3 round trip for all of it.
   */
  async prepare(
    batch: DerivedBatch,
    to: bigint,
    following: boolean,
    standardOf: (token: string) => string | undefined,
  ): Promise<BatchReads> {
    const wrappers = applyWrapperMoves(batch, standardOf);
    const reads: BatchReads = {
      all: false,
      erc20: new Map(),
      nft1155: new Map(),
      holders: [],
      wrappers,
      cost: { reads: 0, calls: 0 },
    };
    if (!this.opts.enabled) return reads;
    reads.all = following || this.opts.backfill === 'batch';
    let e20 = [...batch.erc20Deltas.values()];
    let e1155 = [...batch.nft1155.values()];
    if (!reads.all) {
      if (this.startBlock === 0n) return reads;
      // Indexing from mid-history: a pair's first balance comes from the node, not from deltas.
      const have20 = await selectStored20(this.db, this.chainId, e20);
      const have1155 = await selectStored1155(this.db, this.chainId, e1155);
      e20 = e20.filter((d) => !have20.has(key20(d)));
      e1155 = e1155.filter((d) => !have1155.has(key1155(d)));
    }
    let holders: Stored20[] = [];
    const due =
      this.lastHolderRead === null || to - this.lastHolderRead >= BigInt(this.opts.everyBlocks);
    if (following && due && this.nonConserving.size > 0) {
      holders = await this.nextHolders(batch);
      this.lastHolderRead = to;
    }
    const pairs: BalancePair[] = [
      ...e20.map(pair20),
      ...e1155.map(pair1155),
      ...holders.map(pair20),
    ];
    const read = await readBalanceMap(this.rpc, this.multicall3, pairs, to, reads.cost);
    const answer = (p: BalancePair) => read.get(pairKey(p)) ?? null;
    for (const d of e20) reads.erc20.set(key20(d), answer(pair20(d)));
    for (const d of e1155) reads.nft1155.set(key1155(d), answer(pair1155(d)));
    for (const h of holders) reads.holders.push({ ...h, value: answer(pair20(h)) });
    return reads;
  }

  /** The next window of holders of non-conserving tokens, minus the batch's own pairs. */
  private async nextHolders(batch: DerivedBatch): Promise<Stored20[]> {
    const tokens = [...this.nonConserving].sort();
    const limit = this.opts.maxHolderReads;
    let rows = await selectHolders(this.db, this.chainId, tokens, this.holderCursor, limit);
    if (rows.length < limit && this.holderCursor !== null) {
      // Wrap around: the window reached the end of the holder list.
      const more = await selectHolders(this.db, this.chainId, tokens, null, limit - rows.length);
      const seen = new Set(rows.map(key20));
      rows = [...rows, ...more.filter((r) => !seen.has(key20(r)))];
    }
    const last = rows[rows.length - 1];
    this.holderCursor = rows.length >= limit && last ? [last.token, last.wallet] : null;
    return rows.filter((r) => !batch.erc20Deltas.has(key20(r)));
  }

  /**
   * Sequential, before the batch's transaction (the store is at `checkpoint`): decides every
   * stored value of the batch. Pairs read in `prepare` get the chain's value; a delta that would
   * make a balance negative is read now; the batch that reaches the head after an unreconciled
   * stretch sweeps every pair changed since the last reconciled block. Differences between the
   * chain and the deltas mark the token non-conserving.
   */
  async plan(
    batch: DerivedBatch,
    reads: BatchReads,
    checkpoint: bigint,
    head: bigint,
  ): Promise<ReconcilePlan> {
    const at = batch.toBlock;
    const plan: ReconcilePlan = {
      updates20: [],
      updates1155: [],
      inserts20: [],
      absolutes20: new Map(),
      absolutes1155: new Map(),
      marks: new Map(),
      readErrors: new Map(),
      reconciledBlock: this.reconciledBlock,
      cost: { ...reads.cost },
    };
    for (const t of reads.wrappers) {
      if (!this.nonConserving.has(t)) {
        plan.marks.set(t, {
          reason:
            'deposit_withdrawal: balances move with Deposit/Withdrawal events (WETH9-style wrapper)',
          block: at,
        });
      }
    }
    const sweep = this.opts.enabled && batch.toBlock >= head && this.reconciledBlock !== checkpoint;
    const e20 = [...batch.erc20Deltas.values()];
    const e1155 = [...batch.nft1155.values()];
    const stored20 = await selectStored20(
      this.db,
      this.chainId,
      e20.filter((d) => sweep || d.delta < 0n || reads.erc20.has(key20(d))),
    );
    const stored1155 = await selectStored1155(
      this.db,
      this.chainId,
      e1155.filter((d) => sweep || d.delta < 0n || reads.nft1155.has(key1155(d))),
    );
    const goesNegative = (stored: bigint | undefined, delta: bigint) =>
      delta < 0n && (stored ?? 0n) + delta < 0n;
    const now20 = e20.filter(
      (d) => !reads.erc20.has(key20(d)) && (sweep || goesNegative(stored20.get(key20(d)), d.delta)),
    );
    const now1155 = e1155.filter(
      (d) =>
        !reads.nft1155.has(key1155(d)) &&
        (sweep || goesNegative(stored1155.get(key1155(d)), d.delta)),
    );
    let extra20: Stored20[] = [];
    let extra1155: Stored1155[] = [];
    if (sweep) {
      const all = await selectSweep(this.db, this.chainId, this.reconciledBlock, [
        ...this.nonConserving,
      ]);
      const heldRead = new Set(reads.holders.map(key20));
      extra20 = all.erc20.filter(
        (r) => !batch.erc20Deltas.has(key20(r)) && !heldRead.has(key20(r)),
      );
      extra1155 = all.erc1155.filter((r) => !batch.nft1155.has(key1155(r)));
    }
    let unknown: { wallet: string; token: string }[] = [];
    if (sweep && this.startBlock > 0n && this.opts.maxDiscoveryPairs > 0) {
      unknown = await this.unknownPairs(batch, null);
    }
    const pairs = [...now20.map(pair20), ...now1155.map(pair1155), ...extra20.map(pair20)];
    pairs.push(...extra1155.map(pair1155), ...unknown.map(pair20));
    const values = await readBalanceMap(this.rpc, this.multicall3, pairs, at, plan.cost);
    const answer = (p: BalancePair) => values.get(pairKey(p)) ?? null;
    const read20 = new Map(reads.erc20);
    for (const d of now20) read20.set(key20(d), answer(pair20(d)));
    const read1155 = new Map(reads.nft1155);
    for (const d of now1155) read1155.set(key1155(d), answer(pair1155(d)));
    const ctx = { at, startBlock: this.startBlock, nonConserving: this.nonConserving };
    settleDeltas20(ctx, plan, e20, stored20, read20);
    settleDeltas1155(ctx, plan, e1155, stored1155, read1155);
    settleSweep(ctx, plan, { erc20: extra20, erc1155: extra1155 }, unknown, values);
    if (sweep && this.startBlock === 0n) await this.discoverNonConserving(batch, plan, at);
    for (const h of reads.holders) {
      if (h.value !== null)
        plan.updates20.push({ wallet: h.wallet, token: h.token, amount: h.value });
    }
    const reconciledThrough = reads.all && this.reconciledBlock === checkpoint;
    if (this.opts.enabled && (sweep || reconciledThrough)) plan.reconciledBlock = at;
    if (sweep) {
      this.log.info(
        {
          block: Number(at),
          pairs: now20.length + now1155.length + extra20.length + extra1155.length,
        },
        'balances reconciled with the chain (catch-up sweep)',
      );
    }
    return plan;
  }

  /** (known wallet x token) pairs without a row, minus the batch's (all ERC20s when `tokens` is null). */
  private async unknownPairs(
    batch: DerivedBatch,
    tokens: readonly string[] | null,
  ): Promise<{ wallet: string; token: string }[]> {
    if (this.opts.maxDiscoveryPairs === 0 || tokens?.length === 0) return [];
    const found = await selectUnknownPairs(
      this.db,
      this.chainId,
      this.opts.maxDiscoveryPairs,
      tokens,
    );
    if (found === null) {
      this.log.warn(
        { limit: this.opts.maxDiscoveryPairs },
        'too many (wallet, token) pairs to discover balances that no event shows',
      );
      return [];
    }
    return found.filter((p) => !batch.erc20Deltas.has(key20(p)));
  }

  /**
   * Catch-up from genesis: a non-conserving token (known or just found) may hold balances for
   * known wallets that no event ever named (event-less credits): read those pairs too.
   */
  private async discoverNonConserving(
    batch: DerivedBatch,
    plan: ReconcilePlan,
    at: bigint,
  ): Promise<void> {
    const pairs = await this.unknownPairs(batch, [
      ...new Set([...this.nonConserving, ...plan.marks.keys()]),
    ]);
    const values = await readBalanceMap(this.rpc, this.multicall3, pairs, at, plan.cost);
    for (const p of pairs) {
      const v = values.get(pairKey(pair20(p))) ?? null;
      if (v !== null && v > 0n) plan.inserts20.push({ ...p, amount: v });
    }
  }

  /** Inside the batch's transaction, after `writeBatch`. */
  async apply(
    tx: Queryable,
    plan: ReconcilePlan,
    batch: DerivedBatch,
    undo: boolean,
  ): Promise<void> {
    const from = undo ? { batchFrom: batch.fromBlock } : null;
    await writeReconciled(tx, this.chainId, plan, from, this.reconciledBlock);
  }

  /** After the batch's transaction committed. */
  committed(plan: ReconcilePlan): void {
    this.reconciledBlock = plan.reconciledBlock;
    for (const [token, m] of plan.marks) {
      this.nonConserving.add(token);
      this.log.info(
        { token, reason: m.reason },
        'token does not conserve balances: holders re-read',
      );
    }
    for (const [token, err] of plan.readErrors) {
      this.log.debug({ token, err }, 'balanceOf unreadable; deltas kept (never negative)');
    }
    this.totals.reads += plan.cost.reads;
    this.totals.batches++;
    this.totals.lastReads = plan.cost.reads;
    this.totals.lastCalls = plan.cost.calls;
  }

  status(): ReconcileStatus {
    return {
      enabled: this.opts.enabled,
      reconciled_block: this.reconciledBlock === null ? null : Number(this.reconciledBlock),
      non_conserving_tokens: this.nonConserving.size,
      last_batch_reads: this.totals.lastReads,
      last_batch_rpc_calls: this.totals.lastCalls,
      reads_per_batch:
        this.totals.batches === 0
          ? 0
          : Math.round((this.totals.reads / this.totals.batches) * 10) / 10,
      total_reads: this.totals.reads,
    };
  }
}
