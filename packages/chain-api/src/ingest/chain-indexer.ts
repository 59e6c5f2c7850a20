import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import type { ChainConfig } from '../chains/index.js';
import type { DeriveContext, PoolState } from '../derive/index.js';
import { BaseError, ConfigError } from '../errors/index.js';
import { Reconciler } from '../reconcile/index.js';
import { handleReorg, ReorgTooDeepError } from '../reorg/index.js';
import {
  backoffDelay,
  type ChainCapabilities,
  createRpcClient,
  probeCapabilities,
  type RpcClient,
  sleep,
} from '../rpc/index.js';
import { touchCheckpointHead } from '../store/checkpoints.js';
import { CheckpointConflictError } from '../store/index.js';
import { indexedWithoutTraces, markHalted } from './chain-halt.js';
import { chainStatus } from './chain-status.js';
import { loadCheckpoint, readStandbyStatus, type StandbyStatus } from './checkpoint-store.js';
import { commitBatch } from './commit-batch.js';
import { ContractProbes } from './contract-probes.js';
import { InconsistentRangeError } from './fetch-range.js';
import { ChainReplacedError, verifyGenesis } from './genesis-check.js';
import type { IndexerMode, ModeStatus } from './indexer-mode.js';
import {
  countBatch,
  deriveContextOf,
  emptyStats,
  type IndexerSettings,
  indexerSettings,
  nextBatchSize,
} from './indexer-settings.js';
import type { ChainIndexerOptions, ChainStatus, Checkpoint, IndexStats } from './indexer-types.js';
import { createLeaderLock, type LeaderLock, LeadershipLostError } from './leader-lock.js';
import { loadPools } from './load-pools.js';
import { prefetch } from './prefetch.js';
import { type Prepared, prepareBatch } from './prepare-batch.js';
import { Progress } from './progress.js';
import { resetChainData } from './reset-chain.js';
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
  private lastHeadWrite = 0;
  /** Set when the chain is stopped for good (replaced chain): the error /health shows. */
  private halted: string | undefined;
  private loop: Promise<void> | undefined;
  private readonly progress: Progress;
  /** A mode narrowing what is kept (wallets mode, built by `options.mode`); none in full mode. */
  private readonly mode: IndexerMode<S> | undefined;

  constructor(db: Database, chain: ChainConfig, options: ChainIndexerOptions<S>) {
    this.db = db;
    this.chain = chain;
    this.log = options.log.child({ chain: chain.name, chainId: chain.chainId });
    this.opts = indexerSettings(options);
    this.batchSize = this.opts.batchSize;
    if (!options.rpc && !chain.rpcUrl) {
      throw new ConfigError(`RPC_URL_${chain.chainId}`, `chain ${chain.chainId} has no RPC URL`);
    }
    const rpcOptions = { ...options.rpcOptions, log: this.log, signal: this.abort.signal };
    const url = chain.rpcUrl as string;
    this.rpc =
      options.rpc ??
      options.nodes?.open(url, rpcOptions) ??
      createRpcClient({ ...rpcOptions, url });
    this.lock = createLeaderLock(db, chain.chainId);
    this.lock.onLost((reason) => {
      this.caughtUp = false;
      this.mode?.stop();
      this.log.warn({ reason }, 'leader lock lost: writing stopped, back to standby');
    });
    this.probes = new ContractProbes(db, this.rpc, chain.chainId);
    this.tokenStandards = new TokenStandards(chain.chainId);
    const walletsMode = chain.mode === 'wallets';
    // Wallets mode never indexes from genesis: balances come from the node, not from deltas.
    const reconcileFrom = walletsMode && chain.startBlock === 0n ? 1n : chain.startBlock;
    this.reconciler = new Reconciler(db, this.rpc, chain.chainId, reconcileFrom, this.log, {
      ...(chain.reconcileEveryBlocks ? { everyBlocks: chain.reconcileEveryBlocks } : {}),
      ...options.reconcile,
    });
    this.ctx = deriveContextOf(chain, this.probes);
    this.progress = new Progress(this.log, chain.name, this.opts.plainProgress);
    this.mode = options.mode?.({
      db,
      chain,
      rpc: this.rpc,
      ctx: this.ctx,
      log: this.log,
      signal: this.abort.signal,
      leader: () =>
        this.caps && this.lock.held()
          ? {
              rpc: this.rpc,
              caps: this.caps,
              ctx: this.ctx,
              probes: this.probes,
              storeLogs: this.opts.storeLogs,
            }
          : undefined,
    });
    if (walletsMode && !this.mode) {
      throw new BaseError(
        `chain ${chain.chainId} is in wallets mode: start it with the wallets mode wired in (startIndexers of src/wallets)`,
        { code: 'CONFIG_INVALID' },
      );
    }
  }

  /** Starts the background loop (leader election, backfill, follow). */
  start(): void {
    this.loop ??= this.run().catch((error: unknown) => {
      if (!this.abort.signal.aborted)
        this.log.error({ err: errMsg(error) }, 'indexer loop crashed');
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
    const leader = this.lock.held();
    return chainStatus({
      chain: this.chain,
      caps: this.caps,
      halted: this.halted,
      leader,
      standby: this.standbyStatus,
      checkpoint: this.checkpoint,
      head: this.head,
      caughtUp: this.caughtUp,
      rpcOk: this.rpc.health().ok,
      readyLagBlocks: this.opts.readyLagBlocks,
      extra:
        leader && !this.halted
          ? {
              reconcile: this.reconciler.status(),
              reorgs: { ...this.reorgs },
              ...(this.mode ? { wallets: this.mode.status() } : {}),
            }
          : {},
      now: Date.now(),
    });
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
          await this.touchHead(this.head as bigint, false);
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
        const fields = { err: errMsg(error), code: failure.code, failures };
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
    const chainIdHex = await this.rpc.request<string>('eth_chainId', []);
    if (Number(BigInt(chainIdHex)) !== this.chain.chainId) {
      throw new BaseError(
        `RPC serves chain ${Number(BigInt(chainIdHex))}, expected ${this.chain.chainId}`,
        { code: 'CHAIN_ID_MISMATCH' },
      );
    }
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
    const follow = this.mode
      ? this.mode.followFrom(BigInt(await this.rpc.request<string>('eth_blockNumber', [])))
      : this.chain;
    const cp = await loadCheckpoint(this.db, this.rpc, follow, this.caps);
    await verifyGenesis(this.db, this.rpc, this.chain);
    await markHalted(this.db, this.chain.chainId, null);
    await this.reconciler.init(this.caps.multicall3, cp.block);
    this.checkpoint = cp;
    this.pools = await loadPools(this.db, this.chain.chainId);
    this.mode?.invalidate();
    // A failed step may have lost an acknowledged batch (a crash of the database loses commits
    // made with synchronous_commit off): forget what memory says the store holds.
    this.tokenStandards.clear();
    this.log.info(
      { indexed: Number(cp.block), caps: this.caps, pools: this.pools.size },
      'indexer ready',
    );
  }

  /** When caught up: is the indexed tip still on the node's chain? Repairs it if not. */
  private async tipMatches(): Promise<boolean> {
    const cp = this.checkpoint as Checkpoint;
    if (cp.block < this.chain.startBlock) return true;
    const b = await this.rpc.request<{ hash: string } | null>('eth_getBlockByNumber', [
      `0x${cp.block.toString(16)}`,
      false,
    ]);
    if (b && b.hash.toLowerCase() === cp.hash) return true;
    await this.repairReorg();
    return false;
  }

  private async repairReorg(): Promise<void> {
    const cp = this.checkpoint as Checkpoint;
    if (!this.lock.held()) throw new LeadershipLostError('leader lock lost before a rollback');
    await verifyGenesis(this.db, this.rpc, this.chain);
    const next = await handleReorg(
      this.db,
      this.rpc,
      this.chain.chainId,
      cp.block,
      this.chain.startBlock - 1n,
      this.log,
    ).catch((error: unknown) => {
      if (!(error instanceof ReorgTooDeepError)) throw error;
      throw new ChainReplacedError(this.chain.chainId, this.chain.name, error.message);
    });
    if (next.depth > 0) {
      this.reorgs = {
        count: this.reorgs.count + 1,
        deepest: Math.max(this.reorgs.deepest, next.depth),
      };
    }
    this.checkpoint = undefined;
    this.caughtUp = false;
    // Reload the checkpoint (time included) and the pool cache from the restored store.
    this.checkpoint = await loadCheckpoint(this.db, this.rpc, this.chain, this.caps);
    this.pools = await loadPools(this.db, this.chain.chainId);
    this.mode?.invalidate();
    this.tokenStandards.clear();
    await this.reconciler.init((this.caps as ChainCapabilities).multicall3, this.checkpoint.block);
    if (this.checkpoint.block !== next.block)
      throw new CheckpointConflictError('checkpoint moved during rollback');
  }

  /**
   * The node serves another chain than the store: re-index from scratch when configured (true:
   * keep going), else stop this chain with one clear error (false). Never a retry loop.
   */
  private async onReplaced(error: Error): Promise<boolean> {
    this.checkpoint = undefined;
    this.caughtUp = false;
    if (this.chain.onReplaced === 'reindex') {
      this.log.warn(
        { err: error.message },
        'chain replaced: deleting its indexed data, re-indexing',
      );
      const deleted = await resetChainData(this.db, this.chain.chainId);
      this.log.info({ deleted }, 'chain data deleted');
      this.pools.clear();
      this.mode?.invalidate();
      this.tokenStandards.clear();
      this.probes.clear();
      return true;
    }
    this.halted = error.message;
    this.log.error({ err: error.message }, 'chain replaced: indexing of this chain stopped');
    await markHalted(this.db, this.chain.chainId, error.message).catch(() => {});
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
      let item: IteratorResult<Prepared>;
      try {
        item = await batches.next();
      } catch (error) {
        if (error instanceof InconsistentRangeError) {
          this.log.info({ err: error.message }, 'chain moved while fetching; refetching');
          return;
        }
        throw error;
      }
      if (item.done) return;
      const prepared = item.value;
      const current = this.checkpoint as Checkpoint;
      const first = prepared.batch.blocks[0];
      if (!first || first.parentHash !== current.hash) {
        if (current.block < this.chain.startBlock && current.hash === '0x') {
          // The very first batch of a chain indexed from genesis has no parent to match.
        } else {
          this.log.warn(
            {
              at: Number(prepared.batch.fromBlock),
              expected: current.hash,
              got: first?.parentHash,
            },
            'parent hash mismatch: reorg',
          );
          await this.repairReorg();
          return;
        }
      }
      await this.write(prepared, head);
      const logs = prepared.batch.logs.length;
      this.batchSize = nextBatchSize(this.batchSize, logs, this.opts.maxBatchSize);
    }
  }

  /** Fetch + derive + read what the batch needs from the node (balances, token metadata). */
  private prepare(from: bigint, to: bigint, following: boolean): Promise<Prepared> {
    const deps = {
      db: this.db,
      rpc: this.rpc,
      caps: this.caps as ChainCapabilities,
      probes: this.probes,
      ctx: this.ctx,
      mode: this.mode,
      pools: () => this.pools,
      standards: this.tokenStandards,
      reconciler: this.reconciler,
      log: this.log,
      stats: this.stats,
    };
    return prepareBatch(deps, from, to, following);
  }

  private async write(prepared: Prepared, head: bigint): Promise<void> {
    const { batch } = prepared;
    const t0 = performance.now();
    const deps = {
      db: this.db,
      chain: this.chain,
      lock: this.lock,
      reconciler: this.reconciler,
      maxBatchSize: this.opts.maxBatchSize,
      storeLogs: this.opts.storeLogs,
    };
    const at = {
      cp: this.checkpoint as Checkpoint,
      head,
      pools: this.pools,
      caughtUp: this.caughtUp,
    };
    const committed = await commitBatch(deps, prepared, at).catch((error: unknown) => {
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
    this.lastHeadWrite = Date.now();
    countBatch(this.stats, batch, plan);
    this.progress.tick(checkpoint.block, batch.blocks.length, batch.eventCount);
  }

  /** Between batches: the mode's own work (wallets handover, pool bootstrap chunks). */
  private async between(): Promise<void> {
    if (!this.mode || !this.checkpoint) return;
    const added = await this.mode.between({
      checkpoint: this.checkpoint,
      pools: this.pools,
      multicall3: (this.caps as ChainCapabilities).multicall3,
      assertHeld: (tx) => this.lock.assertHeld(tx),
    });
    for (const p of added) this.pools.set(p.address, p);
  }

  /** Keeps checkpoints.head_block/updated_at fresh so API-only replicas can tell we're alive. */
  private async touchHead(head: bigint, force: boolean): Promise<void> {
    if (!force && Date.now() - this.lastHeadWrite < 2_000) return;
    if (!this.lock.held()) throw new LeadershipLostError('leader lock lost');
    this.lastHeadWrite = Date.now();
    await touchCheckpointHead(this.db, this.chain.chainId, head);
  }
}

function errMsg(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
