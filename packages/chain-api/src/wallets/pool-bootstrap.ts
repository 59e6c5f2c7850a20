import type { Database, Queryable } from '@sluice/db';
import type { Logger } from 'pino';
import type { ChainConfig } from '../chains/index.js';
import { fetchTokenMetadata, type PoolState, type TokenMetadata } from '../derive/index.js';
import { BaseError, messageOf } from '../errors/index.js';
import { anchorsOf, isQuoteToken, type PricingAnchors } from '../pricing/route/anchors.js';
import { rollbackBootstrap } from '../reorg/rollback-bootstrap.js';
import { backoffDelay, type RpcClient, sleep } from '../rpc/index.js';
import { lockCheckpoint } from '../store/checkpoints.js';
import {
  loadBootstrapProgress,
  recordBootstrapCommit,
} from '../store/wallets/pool-bootstrap-commits.js';
import { writeChunk } from './bootstrap-chunk.js';
import { type Factories, type FoundPool, scanFactoryPools } from './pool-scan.js';
import { readPoolStates } from './pool-state-read.js';

/** Where the pool bootstrap of a wallets-mode chain is (in /health under `wallets`). */
export interface PoolBootstrapStatus {
  state: 'scanning' | 'done' | 'idle';
  /** The scan covers the factories' pools created up to here; the follower knows later ones. */
  target_block: number | null;
  /** Every pool created up to here is committed. */
  scanned_block: number | null;
  /** The log scan has reached this block (its pools may still wait for their state read). */
  fetched_block: number | null;
  pools_committed: number;
  pools_queued: number;
  last_error: string | null;
}

/** What a step needs from the indexer: the checkpoint it is at and its leader fence. */
export interface BootstrapStepInput {
  checkpoint: { block: bigint; time: Date | null };
  /** The follower's pool cache: pools it already applies events to. */
  known: ReadonlyMap<string, PoolState>;
  multicall3: string | null;
  assertHeld: (tx: Queryable) => Promise<void>;
}

interface Unit {
  /** Last block of the scanned range. */
  to: bigint;
  pools: FoundPool[];
}

/** Pools per commit: one state read + one transaction between two follower batches. */
const CHUNK = 500;
/** Found pools waiting for their state read before the scanner pauses. */
const MAX_QUEUED = 20_000;
/** Blocks per scan window (each window is split further on "too many results"). */
const SCAN_WINDOW = 2_000_000n;

/**
 * The one-time pool bootstrap of a wallets-mode chain with Uniswap factories configured: the
 * follower starts at the head, so the pools the factories created before were never seen and
 * nothing could be priced. A background scan finds them with `eth_getLogs` (startBlock up to the
 * first checkpoint it sees, the target: later pools the follower sees itself); `step`, which the
 * indexer runs between two batches (no batch in flight, so the follower's pool cache and the
 * checkpoint cannot move), reads a chunk's state at the checkpoint C (reserves, slot0, liquidity,
 * v3 pools' token balances) and commits it in one transaction that locks the checkpoint row and
 * checks it is still C: pools rows, a pool_states row at C, held balances, missing token rows,
 * undo entries at C (a rollback below C removes the chunk again) and a rewind of the pricing
 * cursor to C-1 (the worker may already be past C). The follower applies the pools' events above
 * C from the next batch on. Progress rows in `pool_bootstrap_commits`: a restart resumes after
 * the last committed range; a commit above the checkpoint (rolled back) is forgotten.
 *
 * Only pools that can be on a price route are kept: pools with a stablecoin or the wrapped
 * native on one side (`loadRoutePools` reads no other pool).
 *
 * @example
 * const added = await bootstrap.step({ checkpoint: cp, known: pools, multicall3, assertHeld });
 * for (const p of added) pools.set(p.address, p);
 */
export class PoolBootstrap {
  private loaded = false;
  private generation = 0;
  private target: bigint | null = null;
  private scanned: bigint | null = null;
  private fetched: bigint | null = null;
  private done = false;
  private committed = 0;
  private queue: Unit[] = [];
  private scanning: Promise<void> | undefined;
  private lastError: string | null = null;
  private failures = 0;
  private retryAt = 0;
  private lastLog = 0;
  private readonly anchors: PricingAnchors;

  constructor(
    private readonly db: Database,
    private readonly chain: ChainConfig,
    private readonly rpc: RpcClient,
    private readonly factories: Factories,
    private readonly log: Logger,
    private readonly signal: AbortSignal,
  ) {
    this.anchors = anchorsOf(chain);
  }

  /** The store may have changed under us (init after a failure, rollback, reset): reload. */
  invalidate(): void {
    this.loaded = false;
    this.generation++;
    this.queue = [];
    this.scanning = undefined;
  }

  /**
   * Runs between two follower batches: commits the next chunk of found pools at the checkpoint.
   * Returns the pools committed (the caller adds them to its pool cache). RPC failures are logged,
   * kept in the status and retried with backoff at later steps; they never mark the bootstrap done.
   */
  async step(input: BootstrapStepInput): Promise<PoolState[]> {
    if (Date.now() < this.retryAt) return [];
    try {
      if (!this.loaded) await this.load(input.checkpoint.block);
      if (this.done) return [];
      this.startScan();
      const added = await this.commitNext(input);
      this.failures = 0;
      return added;
    } catch (error) {
      if (this.signal.aborted) throw error;
      this.failures++;
      this.lastError = messageOf(error);
      this.retryAt = Date.now() + backoffDelay(Math.min(this.failures, 6), 500);
      this.log.warn({ err: this.lastError, failures: this.failures }, 'pool bootstrap step failed');
      return [];
    }
  }

  status(): PoolBootstrapStatus {
    const n = (v: bigint | null) => (v === null ? null : Number(v));
    return {
      state: this.done ? 'done' : this.loaded ? 'scanning' : 'idle',
      target_block: n(this.target),
      scanned_block: n(this.scanned),
      fetched_block: n(this.fetched),
      pools_committed: this.committed,
      pools_queued: this.queue.reduce((a, u) => a + u.pools.length, 0),
      last_error: this.lastError,
    };
  }

  /** Progress from the store; commits above the checkpoint were rolled back with their rows. */
  private async load(cp: bigint): Promise<void> {
    const id = this.chain.chainId;
    await rollbackBootstrap(this.db, id, cp);
    const r = await loadBootstrapProgress(this.db, id);
    this.generation++;
    this.queue = [];
    this.scanning = undefined;
    this.lastError = null;
    if (r) {
      this.target = r.targetBlock;
      this.scanned = r.scannedBlock;
      this.done = r.done;
      this.committed = r.pools;
    } else {
      this.target = cp;
      this.scanned = this.chain.startBlock - 1n;
      this.committed = 0;
      // Nothing to price without anchors or factories: done at once (recorded at the first step).
      this.done = false;
    }
    this.fetched = this.scanned;
    this.loaded = true;
    if (!this.done)
      this.log.info(
        { target: Number(this.target), scanned: Number(this.scanned) },
        'pool bootstrap: scanning factory pools',
      );
  }

  /** The background log scan: ranges in order, into the queue; retried on failure, never done. */
  private startScan(): void {
    if (this.scanning || this.fetched === null || this.target === null) return;
    if (this.fetched >= this.target) return;
    const gen = this.generation;
    const target = this.target;
    this.scanning = (async () => {
      let failures = 0;
      while (gen === this.generation && !this.signal.aborted && (this.fetched as bigint) < target) {
        if (this.queue.reduce((a, u) => a + u.pools.length, 0) > MAX_QUEUED) {
          await sleep(200, this.signal).catch(() => {});
          continue;
        }
        const from = (this.fetched as bigint) + 1n;
        const to = from + SCAN_WINDOW - 1n < target ? from + SCAN_WINDOW - 1n : target;
        try {
          const found = await scanFactoryPools(this.rpc, this.factories, from, to, this.signal);
          if (gen !== this.generation) return;
          const pools = found.filter(
            (p) => isQuoteToken(this.anchors, p.token0) || isQuoteToken(this.anchors, p.token1),
          );
          this.queue.push({ to, pools });
          this.fetched = to;
          failures = 0;
        } catch (error) {
          if (this.signal.aborted || gen !== this.generation) return;
          failures++;
          this.lastError = messageOf(error);
          this.log.warn(
            { err: this.lastError, from: Number(from), to: Number(to) },
            'pool scan failed; retrying',
          );
          await sleep(backoffDelay(Math.min(failures, 6), 500), this.signal).catch(() => {});
        }
      }
    })().finally(() => {
      if (gen === this.generation) this.scanning = undefined;
    });
  }

  private async commitNext(input: BootstrapStepInput): Promise<PoolState[]> {
    const { checkpoint: cp, known } = input;
    // Units whose pools are all taken or known; the head unit may be split across steps.
    let take: FoundPool[] = [];
    let units = 0;
    let partial = 0;
    for (const u of this.queue) {
      const fresh = u.pools.filter((p) => !known.has(p.address));
      if (take.length + fresh.length > CHUNK) {
        if (take.length === 0) {
          take = fresh.slice(0, CHUNK);
          partial = CHUNK;
        }
        break;
      }
      take.push(...fresh);
      units++;
    }
    const scannedTo = units > 0 ? (this.queue[units - 1] as Unit).to : (this.scanned as bigint);
    const finished = scannedTo >= (this.target as bigint) && units === this.queue.length;
    if (take.length === 0 && units === 0 && !finished) return [];

    const time = cp.time ?? (await this.blockTime(cp.block));
    const reads = await readPoolStates(this.rpc, input.multicall3, take, cp.block, time);
    const newTokens = await this.missingTokens(take, input.multicall3);
    const gen = this.generation;
    const ok = await this.db.transaction(async (tx) => {
      if ((await lockCheckpoint(tx, this.chain.chainId)) !== cp.block) return false;
      await input.assertHeld(tx);
      await writeChunk(tx, this.chain.chainId, cp.block, reads, newTokens);
      await recordBootstrapCommit(tx, this.chain.chainId, {
        block: cp.block,
        blockTime: time,
        targetBlock: this.target as bigint,
        scannedBlock: scannedTo,
        pools: take.length,
        done: finished,
      });
      return true;
    });
    if (!ok || gen !== this.generation) return [];
    if (partial > 0) {
      const head = this.queue[0] as Unit;
      const taken = new Set(take.map((p) => p.address));
      head.pools = head.pools.filter((p) => !taken.has(p.address));
    } else {
      this.queue.splice(0, units);
    }
    this.scanned = scannedTo;
    this.committed += take.length;
    this.done = finished;
    this.lastError = null;
    if (finished) {
      this.log.info(
        { pools: this.committed, block: Number(cp.block) },
        'pool bootstrap done: pools created before the follow start are priced',
      );
    } else if (Date.now() - this.lastLog > 10_000) {
      this.lastLog = Date.now();
      this.log.info({ ...this.status(), state: undefined }, 'pool bootstrap progress');
    }
    return reads.pools;
  }

  /** Token rows pricing needs (decimals) for the chunk's tokens the store does not hold yet. */
  private async missingTokens(
    pools: readonly FoundPool[],
    multicall3: string | null,
  ): Promise<TokenMetadata[]> {
    const tokens = [...new Set(pools.flatMap((p) => [p.token0, p.token1]))];
    if (tokens.length === 0) return [];
    const { rows } = await this.db.query<{ address: string }>(
      'select address from tokens where chain_id = $1 and address = any($2::text[])',
      [this.chain.chainId, tokens],
    );
    const have = new Set(rows.map((r) => r.address));
    return fetchTokenMetadata(
      this.rpc,
      tokens.filter((t) => !have.has(t)),
      { multicall3 },
    );
  }

  private async blockTime(block: bigint): Promise<Date> {
    const b = await this.rpc.request<{ timestamp: string } | null>('eth_getBlockByNumber', [
      `0x${block.toString(16)}`,
      false,
    ]);
    if (!b) throw new BaseError(`block ${block} not found`, { code: 'BLOCK_NOT_FOUND' });
    return new Date(Number(BigInt(b.timestamp)) * 1000);
  }
}

export { v3PoolHolders } from './bootstrap-chunk.js';
