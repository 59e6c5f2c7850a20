import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import type { ChainConfig } from '../chains/index.js';
import { standardRegistry } from '../decode/index.js';
import {
  applyPoolEvents,
  type DeriveContext,
  type DerivedBatch,
  deriveBatch,
  fetchNativeBalances,
  fetchTokenMetadata,
  type PoolState,
  resolveApprovalStandards,
  type TokenMetadata,
} from '../derive/index.js';
import { BaseError, ConfigError } from '../errors/index.js';
import { paymentTokensOf } from '../nft/sales.js';
import { type BatchReads, Reconciler } from '../reconcile/index.js';
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
import { CheckpointConflictError, withCopyTransaction, writeBatch } from '../store/index.js';
import { PoolBootstrap, v3PoolHolders } from '../wallets/pool-bootstrap.js';
import { WalletsMode } from '../wallets/wallets-mode.js';
import { defaultWalletsOptions } from '../wallets/wallets-options.js';
import { indexedWithoutTraces, markHalted } from './chain-halt.js';
import { chainStatus } from './chain-status.js';
import { loadCheckpoint, readStandbyStatus, type StandbyStatus } from './checkpoint-store.js';
import { ContractProbes } from './contract-probes.js';
import { fetchRange, InconsistentRangeError } from './fetch-range.js';
import { ChainReplacedError, verifyGenesis } from './genesis-check.js';
import type { ChainIndexerOptions, ChainStatus, Checkpoint, IndexStats } from './indexer-types.js';
import { createLeaderLock, type LeaderLock, LeadershipLostError } from './leader-lock.js';
import { loadPools } from './load-pools.js';
import { Progress } from './progress.js';
import { resetChainData } from './reset-chain.js';
import { classifyStepFailure } from './step-failure.js';

export type { ChainIndexerOptions, ChainStatus, IndexStats } from './indexer-types.js';

interface Prepared {
  batch: DerivedBatch;
  nativeBalances: Map<string, bigint>;
  newTokens: TokenMetadata[];
  reads: BatchReads;
}

/**
 * Indexes one chain: holds the chain's leader lock (or waits as a standby), backfills in
 * concurrent ranges with in-order writes, follows the head, and repairs reorgs. Every batch and
 * its checkpoint are one transaction.
 */
export class ChainIndexer {
  readonly chain: ChainConfig;
  readonly stats: IndexStats = {
    blocks: 0,
    events: 0,
    activityRows: 0,
    batches: 0,
    fetchMs: 0,
    deriveMs: 0,
    enrichMs: 0,
    writeMs: 0,
    balanceReads: 0,
    balanceCalls: 0,
  };
  private readonly db: Database;
  private readonly log: Logger;
  private readonly rpc: RpcClient;
  private readonly lock: LeaderLock;
  private readonly opts: Required<
    Omit<ChainIndexerOptions, 'rpc' | 'nodes' | 'log' | 'rpcOptions' | 'reconcile' | 'wallets'>
  >;
  private readonly reconciler: Reconciler;
  private readonly abort = new AbortController();
  private caps: ChainCapabilities | undefined;
  private checkpoint: Checkpoint | undefined;
  private pools = new Map<string, PoolState>();
  private tokenStandards = new Map<string, string>();
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
  /** `"mode": "wallets"`: keeps tracked wallets' rows only and backfills wallets (src/wallets). */
  private readonly wallets: WalletsMode | undefined;
  /** Wallets mode with factories: the one-time bootstrap of earlier pools (pricing). */
  private readonly poolBootstrap: PoolBootstrap | undefined;

  constructor(db: Database, chain: ChainConfig, options: ChainIndexerOptions) {
    this.db = db;
    this.chain = chain;
    this.log = options.log.child({ chain: chain.name, chainId: chain.chainId });
    this.opts = {
      batchSize: options.batchSize ?? 50,
      maxBatchSize: options.maxBatchSize ?? 500,
      concurrency: options.concurrency ?? 4,
      pollIntervalMs: options.pollIntervalMs ?? 250,
      standbyRetryMs: options.standbyRetryMs ?? 1000,
      storeLogs: options.storeLogs ?? 'undecoded',
      readyLagBlocks: options.readyLagBlocks ?? 64,
      plainProgress: options.plainProgress ?? false,
    };
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
      this.wallets?.stop();
      this.log.warn({ reason }, 'leader lock lost: writing stopped, back to standby');
    });
    this.probes = new ContractProbes(db, this.rpc, chain.chainId);
    const walletsMode = chain.mode === 'wallets';
    // Wallets mode never indexes from genesis: balances come from the node, not from deltas.
    const reconcileFrom = walletsMode && chain.startBlock === 0n ? 1n : chain.startBlock;
    this.reconciler = new Reconciler(db, this.rpc, chain.chainId, reconcileFrom, this.log, {
      ...(chain.reconcileEveryBlocks ? { everyBlocks: chain.reconcileEveryBlocks } : {}),
      ...options.reconcile,
    });
    this.ctx = {
      poolTokens: this.probes.poolTokens,
      isErc721: this.probes.isErc721,
      chainId: chain.chainId,
      wrappedNative: chain.wrappedNative?.toLowerCase(),
      v2Factories: new Set(chain.uniswapV2Factories.map((a) => a.toLowerCase())),
      v3Factories: new Set(chain.uniswapV3Factories.map((a) => a.toLowerCase())),
      registry: standardRegistry(),
      paymentTokens: paymentTokensOf(chain),
      traces: false,
    };
    this.progress = new Progress(this.log, chain.name, this.opts.plainProgress);
    this.wallets = walletsMode
      ? new WalletsMode(
          db,
          chain,
          { ...defaultWalletsOptions, ...options.wallets },
          this.log,
          () =>
            this.caps && this.lock.held()
              ? {
                  rpc: this.rpc,
                  caps: this.caps,
                  ctx: this.ctx,
                  probes: this.probes,
                  storeLogs: this.opts.storeLogs,
                }
              : undefined,
          this.abort.signal,
        )
      : undefined;
    this.poolBootstrap =
      walletsMode && this.ctx.v2Factories.size + this.ctx.v3Factories.size > 0
        ? new PoolBootstrap(
            db,
            chain,
            this.rpc,
            { v2: this.ctx.v2Factories, v3: this.ctx.v3Factories },
            this.log.child({ component: 'pool-bootstrap' }),
            this.abort.signal,
          )
        : undefined;
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
    this.wallets?.stop();
    await this.loop;
    await this.lock.release();
    await this.rpc.close();
    this.progress.done();
  }

  /** Current status for /health. */
  status(): ChainStatus {
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
              ...(this.wallets
                ? {
                    wallets: {
                      ...this.wallets.status(),
                      ...(this.poolBootstrap
                        ? { pool_bootstrap: this.poolBootstrap.status() }
                        : {}),
                    },
                  }
                : {}),
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
        if (!this.checkpoint) await this.init();
        await this.wallets?.refresh(this.checkpoint as Checkpoint);
        await this.bootstrapPools();
        const head = await this.rpc.request<string>('eth_blockNumber', []);
        this.head = BigInt(head);
        const cp = this.checkpoint as Checkpoint;
        if (cp.block >= this.head && (await this.tipMatches())) break;
        await this.advance(this.head);
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
        if (!this.checkpoint) await this.init();
        await this.wallets?.refresh(this.checkpoint as Checkpoint);
        await this.bootstrapPools();
        const head = BigInt(await this.rpc.request<string>('eth_blockNumber', []));
        this.head = head;
        const cp = this.checkpoint as Checkpoint;
        if (cp.block >= head) {
          if (await this.tipMatches()) {
            this.caughtUp = true;
            await this.touchHead(head, false);
            await sleep(this.opts.pollIntervalMs, signal);
          }
        } else {
          await this.advance(head);
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
    const follow = this.wallets
      ? this.wallets.followFrom(BigInt(await this.rpc.request<string>('eth_blockNumber', [])))
      : this.chain;
    const cp = await loadCheckpoint(this.db, this.rpc, follow, this.caps);
    await verifyGenesis(this.db, this.rpc, this.chain);
    await markHalted(this.db, this.chain.chainId, null);
    await this.reconciler.init(this.caps.multicall3, cp.block);
    this.checkpoint = cp;
    this.pools = await loadPools(this.db, this.chain.chainId);
    this.poolBootstrap?.invalidate();
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
    this.poolBootstrap?.invalidate();
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
      this.poolBootstrap?.invalidate();
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
    const signal = this.abort.signal;
    const cp = this.checkpoint as Checkpoint;
    const behind = head - cp.block;
    const lookahead = behind > BigInt(this.batchSize) ? this.opts.concurrency : 1;
    this.progress.target(cp.block, head);
    let next = cp.block + 1n;
    const queue: { from: bigint; to: bigint; p: Promise<Prepared> }[] = [];
    const fill = () => {
      while (queue.length < lookahead && next <= head) {
        const from = next;
        const to =
          from + BigInt(this.batchSize) - 1n < head ? from + BigInt(this.batchSize) - 1n : head;
        const p = this.prepare(from, to, lookahead === 1);
        p.catch(() => {}); // awaited in order below; avoid unhandled-rejection noise meanwhile
        queue.push({ from, to, p });
        next = to + 1n;
      }
    };
    fill();
    while (queue.length > 0 && !signal.aborted) {
      const item = queue.shift() as (typeof queue)[number];
      let prepared: Prepared;
      try {
        prepared = await item.p;
      } catch (error) {
        if (error instanceof InconsistentRangeError) {
          this.log.info({ err: error.message }, 'chain moved while fetching; refetching');
          return;
        }
        throw error;
      }
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
      this.adaptBatchSize(prepared.batch);
      fill();
    }
  }

  /** Fetch + derive + read what the batch needs from the node (balances, token metadata). */
  private async prepare(from: bigint, to: bigint, following: boolean): Promise<Prepared> {
    const t0 = performance.now();
    const fetched = await fetchRange(this.rpc, this.caps as ChainCapabilities, from, to);
    // Swap emitters and non-indexed Transfers need a one-time check of the contract (I/O).
    await this.probes.resolve(fetched, (this.caps as ChainCapabilities).multicall3, to);
    const t1 = performance.now();
    const derived = deriveBatch(fetched, this.ctx);
    const batch = this.wallets
      ? this.wallets.filter(
          derived,
          this.poolBootstrap ? v3PoolHolders(derived, this.pools) : undefined,
        )
      : derived;
    const t2 = performance.now();
    this.stats.fetchMs += t1 - t0;
    this.stats.deriveMs += t2 - t1;
    const unknown = [...batch.tokens.keys()].filter((a) => !this.tokenStandards.has(a));
    let newTokens: TokenMetadata[] = [];
    if (unknown.length > 0) {
      const { rows } = await this.db.query<{ address: string; standard: string }>(
        'select address, standard from tokens where chain_id = $1 and address = any($2::text[])',
        [this.chain.chainId, unknown],
      );
      for (const r of rows) this.rememberToken(r.address, r.standard);
      const missing = unknown.filter((a) => !this.tokenStandards.has(a));
      const hints = new Map([...batch.tokens].map(([a, t]) => [a, t.hint]));
      newTokens = await fetchTokenMetadata(this.rpc, missing, {
        multicall3: (this.caps as ChainCapabilities).multicall3,
        hints,
      });
    }
    const fresh = new Map(newTokens.map((t) => [t.address, t.standard]));
    resolveApprovalStandards(batch, (a) => fresh.get(a) ?? this.tokenStandards.get(a));
    const { balances } = await fetchNativeBalances(
      this.rpc,
      [...batch.nativeTouched],
      to,
      this.log,
    );
    const reads = await this.reconciler.prepare(
      batch,
      to,
      following,
      (a) => fresh.get(a) ?? this.tokenStandards.get(a),
    );
    this.stats.enrichMs += performance.now() - t2;
    return { batch, nativeBalances: balances, newTokens, reads };
  }

  private async write(prepared: Prepared, head: bigint): Promise<void> {
    const { batch } = prepared;
    const cp = this.checkpoint as Checkpoint;
    const finalized = head - BigInt(this.chain.finalityDepth);
    const pools = applyPoolEvents(batch.poolEvents, this.pools);
    const last = batch.blocks[batch.blocks.length - 1];
    if (!last) return;
    const backfillDone = batch.toBlock >= head;
    const t0 = performance.now();
    const plan = await this.reconciler.plan(batch, prepared.reads, cp.block, head);
    try {
      await withCopyTransaction(this.db, async (tx) => {
        // Fence: a leader whose lock session died must not write another batch.
        await this.lock.assertHeld(tx);
        await writeBatch(tx, {
          chainId: this.chain.chainId,
          batch,
          expected: { block: cp.block, hash: cp.hash },
          nativeBalances: prepared.nativeBalances,
          newTokens: prepared.newTokens,
          pools,
          undo: batch.toBlock > finalized,
          pruneUndoBelow: finalized - BigInt(this.opts.maxBatchSize),
          headBlock: head,
          backfillDone: backfillDone || this.caughtUp,
          storeLogs: this.opts.storeLogs,
        });
        await this.reconciler.apply(tx, plan, batch, batch.toBlock > finalized);
      });
    } catch (error) {
      if (error instanceof CheckpointConflictError) {
        this.log.error({ err: error.message }, 'checkpoint moved under us; reloading');
        this.checkpoint = undefined;
      }
      throw error;
    }
    this.stats.writeMs += performance.now() - t0;
    this.reconciler.committed(plan);
    this.stats.balanceReads += plan.cost.reads;
    this.stats.balanceCalls += plan.cost.calls;
    this.checkpoint = { block: last.number, hash: last.hash, time: last.time };
    for (const p of pools.changed) this.pools.set(p.address, p);
    for (const t of prepared.newTokens) this.rememberToken(t.address, t.standard);
    if (backfillDone) this.caughtUp = true;
    this.lastHeadWrite = Date.now();
    this.stats.blocks += batch.blocks.length;
    this.stats.events += batch.eventCount;
    this.stats.activityRows += batch.activity.length;
    this.stats.batches++;
    this.progress.tick(last.number, batch.blocks.length, batch.eventCount);
  }

  /** Between batches: the pool bootstrap commits its next chunk at the checkpoint (wallets mode). */
  private async bootstrapPools(): Promise<void> {
    if (!this.poolBootstrap || !this.checkpoint) return;
    const added = await this.poolBootstrap.step({
      checkpoint: this.checkpoint,
      known: this.pools,
      multicall3: (this.caps as ChainCapabilities).multicall3,
      assertHeld: (tx) => this.lock.assertHeld(tx),
    });
    for (const p of added) this.pools.set(p.address, p);
  }

  /** Grow ranges on sparse chains, shrink them on dense ones (bounded memory and txn size). */
  private adaptBatchSize(batch: DerivedBatch): void {
    const logs = batch.logs.length;
    if (logs > 20_000 && this.batchSize > 1)
      this.batchSize = Math.max(1, Math.floor(this.batchSize / 2));
    else if (logs < 2_000 && this.batchSize < this.opts.maxBatchSize) {
      this.batchSize = Math.min(this.opts.maxBatchSize, this.batchSize * 2);
    }
  }

  private rememberToken(address: string, standard: string): void {
    if (this.tokenStandards.size > 200_000) this.tokenStandards.clear();
    this.tokenStandards.set(address, standard);
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
