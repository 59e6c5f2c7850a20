import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import type { ChainConfig } from '../chains/index.js';
import {
  CheckpointConflictError,
  type StoreLogs,
  withCopyTransaction,
  writeBatch,
} from '../db/index.js';
import { standardRegistry } from '../decode/index.js';
import {
  applyPoolEvents,
  type DeriveContext,
  type DerivedBatch,
  deriveBatch,
  fetchBalancesAt,
  fetchNativeBalances,
  fetchTokenMetadata,
  type PoolState,
  resolveApprovalStandards,
  type TokenMetadata,
} from '../derive/index.js';
import { paymentTokensOf } from '../nft/sales.js';
import { handleReorg } from '../reorg/index.js';
import {
  backoffDelay,
  type ChainCapabilities,
  createRpcClient,
  probeCapabilities,
  type RpcClient,
  type RpcClientOptions,
  sleep,
} from '../rpc/index.js';
import { fetchRange, InconsistentRangeError } from './fetch-range.js';
import { createLeaderLock, type LeaderLock } from './leader-lock.js';
import { loadPools } from './load-pools.js';
import { Progress } from './progress.js';

/** What /health and the API's 503 logic read. */
export interface ChainStatus {
  chain_id: number;
  name: string;
  head_block: number | null;
  indexed_block: number | null;
  lag_seconds: number | null;
  /** false while backfilling, when the RPC is failing, or when no replica is indexing the chain. */
  ready: boolean;
}

export interface ChainIndexerOptions {
  log: Logger;
  /** Blocks per batch at start (adapts to the density of the chain). Default 50. */
  batchSize?: number;
  /** Upper bound of the adaptive batch size. Default 500. */
  maxBatchSize?: number;
  /** Batches fetched ahead of the writer during backfill. Default 4. */
  concurrency?: number;
  /** Head polling interval, ms. Default 250. */
  pollIntervalMs?: number;
  /** How often a standby replica retries the leader lock, ms. Default 1000. */
  standbyRetryMs?: number;
  /**
   * Which raw receipt logs to keep in `logs`: `undecoded` (default: every log not already turned
   * into typed rows, e.g. ERC-1155 URI events or any contract's own events), `all`, or `none`.
   */
  storeLogs?: StoreLogs;
  /** Lag (in blocks) above which a caught-up chain reports not ready. Default 64. */
  readyLagBlocks?: number;
  /** Tuning of the RPC client built from `chain.rpcUrl` (timeouts, batch size, backoff). */
  rpcOptions?: Partial<Omit<RpcClientOptions, 'url' | 'log' | 'signal'>>;
  /** RPC client (tests inject one); default from `chain.rpcUrl`. */
  rpc?: RpcClient;
}

interface Checkpoint {
  block: bigint;
  hash: string;
  time: Date | null;
}

interface Prepared {
  batch: DerivedBatch;
  nativeBalances: Map<string, bigint>;
  newTokens: TokenMetadata[];
}

/** Events of the last write, for benchmarks and progress. */
export interface IndexStats {
  blocks: number;
  events: number;
  activityRows: number;
  batches: number;
  /** Wall time spent in each stage (fetch+derive overlap with writes during backfill). */
  fetchMs: number;
  deriveMs: number;
  enrichMs: number;
  writeMs: number;
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
  };
  private readonly db: Database;
  private readonly log: Logger;
  private readonly rpc: RpcClient;
  private readonly lock: LeaderLock;
  private readonly opts: Required<Omit<ChainIndexerOptions, 'rpc' | 'log' | 'rpcOptions'>>;
  private readonly abort = new AbortController();
  private caps: ChainCapabilities | undefined;
  private checkpoint: Checkpoint | undefined;
  private pools = new Map<string, PoolState>();
  private tokenStandards = new Map<string, string>();
  private ctx: DeriveContext;
  private batchSize: number;
  private head: bigint | null = null;
  private caughtUp = false;
  private standbyStatus: { indexed: bigint | null; head: bigint | null; fresh: boolean } | null =
    null;
  private lastHeadWrite = 0;
  private loop: Promise<void> | undefined;
  private readonly progress: Progress;

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
    };
    this.batchSize = this.opts.batchSize;
    if (!options.rpc && !chain.rpcUrl) throw new Error(`chain ${chain.chainId} has no RPC URL`);
    this.rpc =
      options.rpc ??
      createRpcClient({
        ...options.rpcOptions,
        url: chain.rpcUrl as string,
        log: this.log,
        signal: this.abort.signal,
      });
    this.lock = createLeaderLock(db, chain.chainId);
    this.ctx = {
      chainId: chain.chainId,
      wrappedNative: chain.wrappedNative?.toLowerCase(),
      v2Factories: new Set(chain.uniswapV2Factories.map((a) => a.toLowerCase())),
      v3Factories: new Set(chain.uniswapV3Factories.map((a) => a.toLowerCase())),
      registry: standardRegistry(),
      paymentTokens: paymentTokensOf(chain),
      traces: false,
    };
    this.progress = new Progress(this.log, chain.name);
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
    await this.loop;
    await this.lock.release();
    await this.rpc.close();
    this.progress.done();
  }

  /** Current status for /health. */
  status(): ChainStatus {
    const base = { chain_id: this.chain.chainId, name: this.chain.name };
    if (!this.lock.held()) {
      const s = this.standbyStatus;
      return {
        ...base,
        head_block: s?.head === null || s?.head === undefined ? null : Number(s.head),
        indexed_block: s?.indexed === null || s?.indexed === undefined ? null : Number(s.indexed),
        lag_seconds: null,
        ready: Boolean(s?.fresh),
      };
    }
    const indexed = this.checkpoint?.block ?? null;
    const head = this.head;
    const behind = head !== null && indexed !== null ? head - indexed : null;
    const lag =
      behind === null || behind <= 0n || !this.checkpoint?.time
        ? behind === null
          ? null
          : 0
        : Math.max(0, Math.round((Date.now() - this.checkpoint.time.getTime()) / 1000));
    return {
      ...base,
      head_block: head === null ? null : Number(head),
      indexed_block: indexed === null ? null : Number(indexed),
      lag_seconds: lag,
      ready:
        this.caughtUp &&
        this.rpc.health().ok &&
        behind !== null &&
        behind <= BigInt(this.opts.readyLagBlocks),
    };
  }

  /**
   * Indexes up to the node's current head and returns (taking the lock first).
   * For tests, benchmarks and one-shot `index` runs.
   */
  async indexToHead(): Promise<IndexStats> {
    if (!(await this.lock.tryAcquire()))
      throw new Error(`chain ${this.chain.chainId} is locked by another indexer`);
    await this.init();
    for (;;) {
      const head = await this.rpc.request<string>('eth_blockNumber', []);
      this.head = BigInt(head);
      const cp = this.checkpoint as Checkpoint;
      if (cp.block >= this.head && (await this.tipMatches())) break;
      await this.advance(this.head);
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
            await this.readStandbyStatus();
            await sleep(this.opts.standbyRetryMs, signal);
            continue;
          }
          this.log.info('leader lock acquired');
        }
        if (!this.checkpoint) await this.init();
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
        failures++;
        this.log.warn({ err: errMsg(error), failures }, 'indexer step failed; retrying');
        this.checkpoint = undefined; // reload state from the store
        await sleep(backoffDelay(Math.min(failures, 6), 250), signal).catch(() => {});
      }
    }
  }

  /** Loads capabilities, checkpoint and pool cache (after taking the lock or a failure). */
  private async init(): Promise<void> {
    const chainIdHex = await this.rpc.request<string>('eth_chainId', []);
    if (Number(BigInt(chainIdHex)) !== this.chain.chainId) {
      throw new Error(
        `RPC serves chain ${Number(BigInt(chainIdHex))}, expected ${this.chain.chainId}`,
      );
    }
    this.caps ??= await probeCapabilities(this.rpc, { multicall3: this.chain.multicall3 });
    this.ctx.traces = this.caps.traces;
    const cp = await this.loadCheckpoint();
    this.checkpoint = cp;
    this.pools = await loadPools(this.db, this.chain.chainId);
    this.log.info(
      { indexed: Number(cp.block), caps: this.caps, pools: this.pools.size },
      'indexer ready',
    );
  }

  private async loadCheckpoint(): Promise<Checkpoint> {
    const chainId = this.chain.chainId;
    const read = async () => {
      const { rows } = await this.db.query<{
        indexed_block: string;
        indexed_hash: string;
        indexed_time: Date | string | null;
      }>('select indexed_block, indexed_hash, indexed_time from checkpoints where chain_id = $1', [
        chainId,
      ]);
      const r = rows[0];
      return r
        ? {
            block: BigInt(r.indexed_block),
            hash: r.indexed_hash,
            time: r.indexed_time ? new Date(r.indexed_time) : null,
          }
        : undefined;
    };
    const existing = await read();
    if (existing) {
      await this.db.query('update checkpoints set capabilities = $2 where chain_id = $1', [
        chainId,
        JSON.stringify(this.caps),
      ]);
      return existing;
    }
    const start = this.chain.startBlock;
    let anchor: Checkpoint = { block: start - 1n, hash: '0x', time: null };
    if (start > 0n) {
      const b = await this.rpc.request<{ hash: string; parentHash: string; timestamp: string }>(
        'eth_getBlockByNumber',
        [`0x${(start - 1n).toString(16)}`, false],
        { validate: (r) => r !== null },
      );
      anchor = {
        block: start - 1n,
        hash: b.hash.toLowerCase(),
        time: new Date(Number(BigInt(b.timestamp)) * 1000),
      };
      await this.db.query(
        `insert into blocks (chain_id, number, hash, parent_hash, timestamp) values ($1, $2, $3, $4, $5)
         on conflict do nothing`,
        [
          chainId,
          anchor.block.toString(),
          anchor.hash,
          b.parentHash.toLowerCase(),
          anchor.time?.toISOString(),
        ],
      );
    }
    await this.db.query(
      `insert into checkpoints (chain_id, indexed_block, indexed_hash, indexed_time, capabilities)
       values ($1, $2, $3, $4, $5) on conflict (chain_id) do nothing`,
      [
        chainId,
        anchor.block.toString(),
        anchor.hash,
        anchor.time?.toISOString() ?? null,
        JSON.stringify(this.caps),
      ],
    );
    return (await read()) as Checkpoint;
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
    const next = await handleReorg(
      this.db,
      this.rpc,
      this.chain.chainId,
      cp.block,
      this.chain.startBlock - 1n,
      this.log,
    );
    this.checkpoint = undefined;
    this.caughtUp = false;
    // Reload the checkpoint (time included) and the pool cache from the restored store.
    this.checkpoint = await this.loadCheckpoint();
    this.pools = await loadPools(this.db, this.chain.chainId);
    if (this.checkpoint.block !== next.block) throw new Error('checkpoint moved during rollback');
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
        const p = this.prepare(from, to);
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
  private async prepare(from: bigint, to: bigint): Promise<Prepared> {
    const t0 = performance.now();
    const fetched = await fetchRange(this.rpc, this.caps as ChainCapabilities, from, to);
    const t1 = performance.now();
    const batch = deriveBatch(fetched, this.ctx);
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
    if (this.chain.startBlock > 0n) await this.seedBalances(batch, to);
    this.stats.enrichMs += performance.now() - t2;
    return { batch, nativeBalances: balances, newTokens };
  }

  /**
   * Indexing from a non-zero start block misses earlier transfers: the first time a (wallet, token)
   * pair shows up, its balance is read at the batch's last block instead of trusting deltas.
   */
  private async seedBalances(batch: DerivedBatch, to: bigint): Promise<void> {
    const chainId = this.chain.chainId;
    const erc20 = [...batch.erc20Deltas.values()];
    const known20 = await this.db.query<{ wallet: string; token: string }>(
      `select b.wallet, b.token from erc20_balances b
         join unnest($2::text[], $3::text[]) as k(w, t) on b.wallet = k.w and b.token = k.t
        where b.chain_id = $1`,
      [chainId, erc20.map((d) => d.wallet), erc20.map((d) => d.token)],
    );
    const have20 = new Set(known20.rows.map((r) => `${r.wallet}|${r.token}`));
    const new20 = erc20.filter((d) => !have20.has(`${d.wallet}|${d.token}`));
    const n1155 = [...batch.nft1155.values()];
    const known1155 = await this.db.query<{ wallet: string; contract: string; token_id: string }>(
      `select h.wallet, h.contract, h.token_id::text as token_id from nft_holdings h
         join unnest($2::text[], $3::text[], $4::numeric[]) as k(w, c, id)
           on h.wallet = k.w and h.contract = k.c and h.token_id = k.id
        where h.chain_id = $1`,
      [
        chainId,
        n1155.map((d) => d.wallet),
        n1155.map((d) => d.contract),
        n1155.map((d) => d.tokenId.toString()),
      ],
    );
    const have1155 = new Set(known1155.rows.map((r) => `${r.wallet}|${r.contract}|${r.token_id}`));
    const new1155 = n1155.filter((d) => !have1155.has(`${d.wallet}|${d.contract}|${d.tokenId}`));
    const values = await fetchBalancesAt(
      this.rpc,
      (this.caps as ChainCapabilities).multicall3,
      [
        ...new20.map((d) => ({ token: d.token, wallet: d.wallet })),
        ...new1155.map((d) => ({ token: d.contract, wallet: d.wallet, id: d.tokenId })),
      ],
      to,
    );
    new20.forEach((d, i) => {
      const v = values[i];
      if (v !== null && v !== undefined) d.absolute = v;
    });
    new1155.forEach((d, i) => {
      const v = values[new20.length + i];
      if (v !== null && v !== undefined) d.absolute = v;
    });
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
    try {
      await withCopyTransaction(this.db, (tx) =>
        writeBatch(tx, {
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
        }),
      );
    } catch (error) {
      if (error instanceof CheckpointConflictError) {
        this.log.error({ err: error.message }, 'checkpoint moved under us; reloading');
        this.checkpoint = undefined;
      }
      throw error;
    }
    this.stats.writeMs += performance.now() - t0;
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
    this.lastHeadWrite = Date.now();
    await this.db.query(
      'update checkpoints set head_block = $2, backfill_done = true, updated_at = now() where chain_id = $1',
      [this.chain.chainId, head.toString()],
    );
  }

  private async readStandbyStatus(): Promise<void> {
    const { rows } = await this.db.query<{
      indexed_block: string;
      head_block: string | null;
      backfill_done: boolean;
      age: number | string;
    }>(
      `select indexed_block, head_block, backfill_done,
              extract(epoch from now() - updated_at) as age
         from checkpoints where chain_id = $1`,
      [this.chain.chainId],
    );
    const r = rows[0];
    this.standbyStatus = r
      ? {
          indexed: BigInt(r.indexed_block),
          head: r.head_block === null ? null : BigInt(r.head_block),
          fresh: r.backfill_done && Number(r.age) < 30,
        }
      : { indexed: null, head: null, fresh: false };
  }
}

function errMsg(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
