import type { Database, Queryable } from '@sluice/db';
import type { Logger } from 'pino';
import type { ChainConfig } from '../chains/index.js';
import type { DeriveContext, PoolState } from '../derive/index.js';
import { BaseError, messageOf } from '../errors/index.js';
import type { Reconciler } from '../reconcile/index.js';
import { ReorgTooDeepError, repairReorg } from '../reorg/index.js';
import {
  backoffDelay,
  type ChainCapabilities,
  probeCapabilities,
  type RpcClient,
  sleep,
} from '../rpc/index.js';
import { CheckpointConflictError, PlannerStats } from '../store/index.js';
import { haltReplaced, indexedWithoutTraces, markHalted } from './chain-halt.js';
import { loadCheckpoint, readStandbyStatus, type StandbyStatus } from './checkpoint-store.js';
import { type CommitDeps, commitBatch } from './commit-batch.js';
import { ContractProbes } from './contract-probes.js';
import { InconsistentRangeError } from './fetch-range.js';
import { ChainReplacedError, verifyChainId, verifyGenesis } from './genesis-check.js';
import { HeadTouch } from './head-touch.js';
import { IndexDeferral } from './index-deferral.js';
import type { IndexerMode, LeaderState, ModeStatus } from './indexer-mode.js';
import { chainMode, chainReconciler, openChainRpc } from './indexer-parts.js';
import {
  countBatch,
  deriveContextOf,
  emptyStats,
  type IndexerSettings,
  indexerSettings,
  nextBatchSize,
} from './indexer-settings.js';
import { indexerStatus } from './indexer-status.js';
import type { ChainIndexerOptions, ChainStatus, Checkpoint, IndexStats } from './indexer-types.js';
import { createLeaderLock, type LeaderLock, LeadershipLostError } from './leader-lock.js';
import { loadPools } from './load-pools.js';
import { brokenParentLink, tipOnNode } from './parent-link.js';
import { prefetch } from './prefetch.js';
import { type Prepared, prepareBatch } from './prepare-batch.js';
import { Progress } from './progress.js';
import { reindexReplaced, resetChainData } from './reset-chain.js';
import { classifyStepFailure } from './step-failure.js';
import { TokenStandards } from './token-standards.js';

export type { ChainIndexerOptions, ChainStatus, IndexStats } from './indexer-types.js';

/**
 * Indexes one chain: holds the chain's leader lock (or waits as a standby), backfills in
 * concurrent ranges with in-order writes, follows the head, and repairs reorgs. Every batch and
 * its checkpoint are one transaction.
 */
export class ChainIndexer<S extends ModeStatus = ModeStatus> {
  readonly chain: ChainConfig;
  readonly stats: IndexStats = emptyStats();
  private readonly db: Database;
  private readonly log: Logger;
  private readonly rpc: RpcClient;
  private readonly lock: LeaderLock;
  private readonly opts: IndexerSettings;
  private readonly reconciler: Reconciler;
  private readonly abort = new AbortController();
  private caps: ChainCapabilities | undefined;
  private checkpoint: Checkpoint | undefined;
  private pools = new Map<string, PoolState>();
  private readonly tokenStandards: TokenStandards;
  private ctx: DeriveContext;
  private readonly probes: ContractProbes;
  private batchSize: number;
  private head: bigint | null = null;
  private caughtUp = false;
  private reorgs = { count: 0, deepest: 0 };
  private standbyStatus: StandbyStatus | null = null;
  private readonly headTouch: HeadTouch;
  /** Set when the chain is stopped for good (replaced chain): the error /health shows. */
  private halted: string | undefined;
  private loop: Promise<void> | undefined;
  private readonly progress: Progress;
  /** A mode narrowing what is kept (wallets mode, built by `options.mode`); none in full mode. */
  private readonly mode: IndexerMode<S> | undefined;
  private readonly commitDeps: CommitDeps;
  private readonly plannerStats: PlannerStats;
  private readonly deferral: IndexDeferral;

  constructor(db: Database, chain: ChainConfig, options: ChainIndexerOptions<S>) {
    this.db = db;
    this.chain = chain;
    this.log = options.log.child({ chain: chain.name, chainId: chain.chainId });
    this.opts = indexerSettings(options);
    this.batchSize = this.opts.batchSize;
    this.rpc = openChainRpc(chain, options, this.log, this.abort.signal);
    this.lock = createLeaderLock(db, chain.chainId);
    this.headTouch = new HeadTouch(db, chain.chainId, () => this.lock.held());
    this.lock.onLost((reason) => {
      this.caughtUp = false;
      this.mode?.stop();
      this.log.warn({ reason }, 'leader lock lost: writing stopped, back to standby');
    });
    this.probes = new ContractProbes(db, this.rpc, chain.chainId);
    this.tokenStandards = new TokenStandards(chain.chainId);
    this.reconciler = chainReconciler(db, this.rpc, chain, options, this.log);
    this.ctx = deriveContextOf(chain, this.probes);
    this.progress = new Progress(this.log, chain.name, this.opts.plainProgress);
    const { rpc, ctx, log } = this;
    const signal = this.abort.signal;
    const leader = () => this.leaderState();
    this.mode = chainMode(options, { db, chain, rpc, ctx, log, signal, leader });
    const { lock, reconciler } = this;
    const { maxBatchSize, storeLogs } = this.opts;
    this.commitDeps = { db, chain, lock, reconciler, maxBatchSize, storeLogs };
    this.plannerStats = new PlannerStats(db, (err) =>
      this.log.warn({ err }, 'analyze of the balance tables failed'),
    );
    this.deferral = new IndexDeferral(db, this.opts.deferIndexesMinBlocks, this.log);
  }

  /** What a leading indexer shares with its mode; undefined as a standby or before init. */
  private leaderState(): LeaderState | undefined {
    if (!this.caps || !this.lock.held()) return undefined;
    const { rpc, caps, ctx, probes } = this;
    return { rpc, caps, ctx, probes, storeLogs: this.opts.storeLogs };
  }

  /** Starts the background loop (leader election, backfill, follow). */
  start(): void {
    this.loop ??= this.run().catch((error: unknown) => {
      if (!this.abort.signal.aborted)
        this.log.error({ err: messageOf(error) }, 'indexer loop crashed');
    });
  }

  /** Stops the loop, releases the lock. */
  async stop(): Promise<void> {
    this.abort.abort(new Error('stopped'));
    this.mode?.stop();
    await this.loop;
    await this.lock.release();
    await this.rpc.close();
    this.progress.done();
  }

  /** Current status for /health. */
  status(): ChainStatus<S> {
    const { chain, caps, halted, checkpoint, head, caughtUp, reconciler, reorgs, mode } = this;
    const { readyLagBlocks } = this.opts;
    const leader = this.lock.held();
    const standby = this.standbyStatus;
    const rpcOk = this.rpc.health().ok;
    const state = { chain, caps, halted, leader, standby, checkpoint, head, caughtUp, rpcOk };
    const settings = { readyLagBlocks, deferredIndexes: this.deferral.pending };
    return indexerStatus({ ...state, ...settings }, { reconciler, reorgs, mode });
  }

  /**
   * Indexes up to the node's current head and returns (taking the lock first).
   * For tests, benchmarks and one-shot `index` runs.
   */
  async indexToHead(): Promise<IndexStats> {
    if (!(await this.lock.tryAcquire()))
      throw new BaseError(`chain ${this.chain.chainId} is locked by another indexer`, {
        code: 'LEADER_LOCK_HELD',
      });
    for (;;) {
      try {
        if (await this.step()) break;
      } catch (error) {
        // Same policy as the loop: re-index when configured, else stop with the error.
        if (error instanceof ChainReplacedError && (await this.onReplaced(error))) continue;
        throw error;
      }
    }
    await this.deferral.settle(); // builds what a cold backfill deferred
    this.caughtUp = true;
    return { ...this.stats };
  }

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (!this.lock.held()) {
          this.checkpoint = undefined;
          if (!(await this.lock.tryAcquire())) {
            this.standbyStatus = await readStandbyStatus(this.db, this.chain.chainId);
            await sleep(this.opts.standbyRetryMs, signal);
            continue;
          }
          this.standbyStatus = null;
          this.log.info('leader lock acquired');
        }
        if (await this.step()) {
          this.caughtUp = true;
          await this.deferral.settle();
          await this.headTouch.touch(this.head as bigint);
          await sleep(this.opts.pollIntervalMs, signal);
        }
        failures = 0;
      } catch (error) {
        if (signal.aborted) break;
        const failure = classifyStepFailure(error);
        if (failure.action === 'halt') {
          if (await this.onReplaced(failure.error)) continue;
          return;
        }
        if (failure.action === 'standby') {
          this.checkpoint = undefined; // standby now; the new leader owns the store
          this.caughtUp = false;
          // Give the standbys (polling every standbyRetryMs) the first chance to take over.
          await sleep(2 * this.opts.standbyRetryMs, signal).catch(() => {});
          continue;
        }
        failures++;
        const fields = { err: messageOf(error), code: failure.code, failures };
        if (failure.retryable) this.log.warn(fields, 'indexer step failed; retrying');
        else this.log.error(fields, 'indexer step failed (not retryable); retrying');
        this.checkpoint = undefined; // reload state from the store
        await sleep(backoffDelay(Math.min(failures, 6), 250), signal).catch(() => {});
      }
    }
  }

  /**
   * One step of the leader: (re)load state if needed, run the mode's between-batches work, then
   * index up to the node's head or check the indexed tip. True when at the head and the tip
   * matches (nothing to do); false after indexing or repairing a reorg.
   */
  private async step(): Promise<boolean> {
    if (!this.checkpoint) await this.init();
    await this.between();
    const head = BigInt(await this.rpc.request<string>('eth_blockNumber', []));
    this.head = head;
    const cp = this.checkpoint as Checkpoint;
    if (cp.block >= head) return this.tipMatches();
    await this.advance(head);
    return false;
  }

  /** Loads capabilities, checkpoint and pool cache (after taking the lock or a failure). */
  private async init(): Promise<void> {
    await verifyChainId(this.rpc, this.chain.chainId);
    // Probed at every start (never trusted from the store): a wrong answer must not persist.
    this.caps ??= await probeCapabilities(this.rpc, {
      multicall3: this.chain.multicall3,
      signal: this.abort.signal,
    });
    this.ctx.traces = this.caps.traces;
    if (await indexedWithoutTraces(this.db, this.chain.chainId, this.chain.startBlock, this.caps)) {
      this.log.warn('blocks were indexed without traces, which the node now serves: re-indexing');
      await resetChainData(this.db, this.chain.chainId);
    }
    const head = BigInt(await this.rpc.request<string>('eth_blockNumber', []));
    const follow = this.mode ? this.mode.followFrom(head) : this.chain;
    const cp = await loadCheckpoint(this.db, this.rpc, follow, this.caps);
    await verifyGenesis(this.db, this.rpc, this.chain);
    await markHalted(this.db, this.chain.chainId, null);
    await this.adopt(cp);
    await this.deferral.start(head - cp.block, this.mode !== undefined);
    this.log.info(
      { indexed: Number(cp.block), caps: this.caps, pools: this.pools.size },
      'indexer ready',
    );
  }

  /** When caught up: is the indexed tip still on the node's chain? Repairs it if not. */
  private async tipMatches(): Promise<boolean> {
    const cp = this.checkpoint as Checkpoint;
    if (await tipOnNode(this.rpc, cp, this.chain.startBlock)) return true;
    await this.repairReorg();
    return false;
  }

  private async repairReorg(): Promise<void> {
    const cp = this.checkpoint as Checkpoint;
    if (!this.lock.held()) throw new LeadershipLostError('leader lock lost before a rollback');
    await verifyGenesis(this.db, this.rpc, this.chain);
    const { db, rpc, log, chain } = this;
    const lowest = chain.startBlock - 1n;
    const reload = (r: { depth: number }) => this.reloadAfterRollback(r.depth);
    await repairReorg({ db, rpc, chainId: chain.chainId, lowest, log, reload }, cp.block).catch(
      (error: unknown) => {
        if (!(error instanceof ReorgTooDeepError)) throw error;
        throw new ChainReplacedError(chain.chainId, chain.name, error.message);
      },
    );
  }

  /** Reloads the checkpoint (time included) and the caches from the rolled-back store. */
  private async reloadAfterRollback(depth: number): Promise<bigint> {
    if (depth > 0) {
      this.reorgs = { count: this.reorgs.count + 1, deepest: Math.max(this.reorgs.deepest, depth) };
    }
    this.checkpoint = undefined;
    this.caughtUp = false;
    const cp = await loadCheckpoint(this.db, this.rpc, this.chain, this.caps);
    await this.adopt(cp);
    return cp.block;
  }

  /** Takes the store's checkpoint, reconciler state and pool cache; forgets the other caches. */
  private async adopt(cp: Checkpoint): Promise<void> {
    await this.reconciler.init((this.caps as ChainCapabilities).multicall3, cp.block);
    this.checkpoint = cp;
    this.pools = await loadPools(this.db, this.chain.chainId);
    this.mode?.invalidate();
    // A failed step may have lost an acknowledged batch (a crash of the database loses commits
    // made with synchronous_commit off): forget what memory says the store holds.
    this.tokenStandards.clear();
  }

  /**
   * The node serves another chain than the store: re-index from scratch when configured (true:
   * keep going), else stop this chain with one clear error (false). Never a retry loop.
   */
  private async onReplaced(error: Error): Promise<boolean> {
    this.checkpoint = undefined;
    this.caughtUp = false;
    if (this.chain.onReplaced === 'reindex') {
      await reindexReplaced(this.db, this.chain.chainId, this.log, error);
      this.pools.clear();
      this.mode?.invalidate();
      this.tokenStandards.clear();
      this.probes.clear();
      return true;
    }
    this.halted = error.message;
    await haltReplaced(this.db, this.chain.chainId, this.log, error);
    return false;
  }

  /** Indexes from the checkpoint to `head`: concurrent prefetch, in-order writes. */
  private async advance(head: bigint): Promise<void> {
    const cp = this.checkpoint as Checkpoint;
    const lookahead = head - cp.block > BigInt(this.batchSize) ? this.opts.concurrency : 1;
    this.progress.target(cp.block, head);
    const batches = prefetch({
      from: cp.block + 1n,
      head,
      lookahead,
      batchSize: () => this.batchSize,
      prepare: (from, to) => this.prepare(from, to, lookahead === 1),
      signal: this.abort.signal,
    });
    for (;;) {
      const item = await batches.next().catch((error: unknown) => {
        if (!(error instanceof InconsistentRangeError)) throw error;
        this.log.info({ err: error.message }, 'chain moved while fetching; refetching');
        return undefined;
      });
      if (!item || item.done) return;
      const prepared = item.value;
      const current = this.checkpoint as Checkpoint;
      const broken = brokenParentLink(prepared.batch, current, this.chain.startBlock);
      if (broken) {
        this.log.warn(broken, 'parent hash mismatch: reorg');
        await this.repairReorg();
        return;
      }
      await this.write(prepared, head);
      const logs = prepared.batch.logs.length;
      this.batchSize = nextBatchSize(this.batchSize, logs, this.opts.maxBatchSize);
    }
  }

  /** Fetch + derive + read what the batch needs from the node (balances, token metadata). */
  private prepare(from: bigint, to: bigint, following: boolean): Promise<Prepared> {
    const { db, rpc, probes, ctx, mode, reconciler, log, stats } = this;
    const caps = this.caps as ChainCapabilities;
    const pools = () => this.pools;
    const deps = { db, rpc, caps, probes, ctx, mode, pools, reconciler, log, stats };
    return prepareBatch({ ...deps, standards: this.tokenStandards }, from, to, following);
  }

  private async write(prepared: Prepared, head: bigint): Promise<void> {
    const { batch } = prepared;
    const t0 = performance.now();
    const { pools: cached, caughtUp } = this;
    const at = { cp: this.checkpoint as Checkpoint, head, pools: cached, caughtUp };
    const committed = await commitBatch(this.commitDeps, prepared, at).catch((error: unknown) => {
      if (error instanceof CheckpointConflictError) {
        this.log.error({ err: error.message }, 'checkpoint moved under us; reloading');
        this.checkpoint = undefined;
      }
      throw error;
    });
    if (!committed) return;
    const { plan, pools, checkpoint } = committed;
    this.stats.writeMs += performance.now() - t0;
    this.reconciler.committed(plan);
    this.checkpoint = checkpoint;
    for (const p of pools.changed) this.pools.set(p.address, p);
    for (const t of prepared.newTokens) this.tokenStandards.remember(t.address, t.standard);
    if (committed.backfillDone) this.caughtUp = true;
    this.headTouch.wrote();
    countBatch(this.stats, batch, plan);
    await this.plannerStats.wrote(
      batch.erc20Deltas.size + batch.nft1155.size + batch.nativeTouched.size,
    );
    this.progress.tick(checkpoint.block, batch.blocks.length, batch.eventCount, this.stats);
  }

  /** Between batches: the mode's own work (wallets handover, pool bootstrap chunks). */
  private async between(): Promise<void> {
    if (!this.mode || !this.checkpoint) return;
    const { checkpoint, pools } = this;
    const multicall3 = (this.caps as ChainCapabilities).multicall3;
    const assertHeld = (tx: Queryable) => this.lock.assertHeld(tx);
    const added = await this.mode.between({ checkpoint, pools, multicall3, assertHeld });
    for (const p of added) this.pools.set(p.address, p);
  }
}
