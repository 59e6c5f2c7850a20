import type { Database, Queryable } from '@sluice/db';
import type { Logger } from 'pino';
import type { ChainConfig } from '../chains/index.js';
import { bulkInsert, writeNewTokens, writePoolRows, writePoolStateRows } from '../db/index.js';
import { fetchTokenMetadata, type PoolState, type TokenMetadata } from '../derive/index.js';
import { BaseError } from '../errors/index.js';
import { rollbackPricing } from '../pricing/rollback-pricing.js';
import { anchorsOf, isQuoteToken, type PricingAnchors } from '../pricing/route/anchors.js';
import { backoffDelay, type RpcClient, sleep } from '../rpc/index.js';
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
      this.lastError = errMsg(error);
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
    await this.db.query('delete from pool_bootstrap_commits where chain_id = $1 and block > $2', [
      id,
      cp.toString(),
    ]);
    const { rows } = await this.db.query<{
      target_block: string;
      scanned_block: string;
      done: boolean;
      pools: string;
    }>(
      `select target_block::text, scanned_block::text, done,
              (select coalesce(sum(pools), 0)::text from pool_bootstrap_commits where chain_id = $1) as pools
         from pool_bootstrap_commits where chain_id = $1 order by seq desc limit 1`,
      [id],
    );
    const r = rows[0];
    this.generation++;
    this.queue = [];
    this.scanning = undefined;
    this.lastError = null;
    if (r) {
      this.target = BigInt(r.target_block);
      this.scanned = BigInt(r.scanned_block);
      this.done = r.done;
      this.committed = Number(r.pools);
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
          this.lastError = errMsg(error);
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
      const { rows } = await tx.query<{ indexed_block: string }>(
        'select indexed_block::text as indexed_block from checkpoints where chain_id = $1 for update',
        [this.chain.chainId],
      );
      if (rows[0]?.indexed_block !== cp.block.toString()) return false;
      await input.assertHeld(tx);
      await writeChunk(tx, this.chain.chainId, cp.block, reads, newTokens);
      await tx.query(
        `insert into pool_bootstrap_commits
           (chain_id, block, block_time, target_block, scanned_block, pools, done)
         values ($1, $2, $7, $3, $4, $5, $6)`,
        [
          this.chain.chainId,
          cp.block.toString(),
          (this.target as bigint).toString(),
          scannedTo.toString(),
          take.length,
          finished,
          time.toISOString(),
        ],
      );
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

/**
 * One chunk's rows, inside the commit transaction, with undo entries at `block` (a rollback below
 * it deletes them: the follower's later snapshots of the same keys come after these by `seq`).
 */
async function writeChunk(
  tx: Queryable,
  chainId: number,
  block: bigint,
  reads: Awaited<ReturnType<typeof readPoolStates>>,
  newTokens: readonly TokenMetadata[],
): Promise<void> {
  const s = (v: bigint) => v.toString();
  const at = s(block);
  const pools = reads.pools;
  if (pools.length > 0) {
    await tx.query(
      `insert into reorg_undo (chain_id, batch_from, tbl, key, prev)
       select $1, $2, 'pools', jsonb_build_object('address', k.a),
              coalesce((select jsonb_agg(to_jsonb(p.*)) from pools p where p.chain_id = $1 and p.address = k.a), '[]'::jsonb)
         from unnest($3::text[]) as k(a)`,
      [chainId, at, pools.map((p) => p.address)],
    );
  }
  if (reads.held.length > 0) {
    await tx.query(
      `insert into reorg_undo (chain_id, batch_from, tbl, key, prev)
       select $1, $2, 'erc20_balances', jsonb_build_object('wallet', k.w, 'token', k.t),
              coalesce((select jsonb_agg(to_jsonb(b.*)) from erc20_balances b
                         where b.chain_id = $1 and b.wallet = k.w and b.token = k.t), '[]'::jsonb)
         from unnest($3::text[], $4::text[]) as k(w, t)`,
      [chainId, at, reads.held.map((h) => h.pool), reads.held.map((h) => h.token)],
    );
  }
  await writePoolRows(tx, chainId, pools, 'ignore');
  const withState = pools.filter((p) => p.updatedBlock !== null);
  await writePoolStateRows(
    tx,
    chainId,
    withState.map((p) => ({
      pool: p.address,
      block,
      time: p.updatedTime as Date,
      reserve0: p.reserve0,
      reserve1: p.reserve1,
      sqrtPriceX96: p.sqrtPriceX96,
      tick: p.tick,
      liquidity: p.liquidity,
    })),
    'on conflict (chain_id, pool, block_number) do nothing',
  );
  await bulkInsert(
    tx,
    'erc20_balances',
    [
      ['wallet', 'text'],
      ['chain_id', 'int4'],
      ['token', 'text'],
      ['amount', 'numeric'],
      ['updated_block', 'int8'],
    ],
    reads.held.map((h) => [h.pool, chainId, h.token, s(h.amount), at]),
    `on conflict (wallet, chain_id, token) do update set amount = excluded.amount,
       updated_block = excluded.updated_block`,
  );
  await writeNewTokens(tx, chainId, newTokens, () => block);
  // The pricing worker may be past `block`: it prices this chunk's states from block on.
  if (withState.length > 0) await rollbackPricing(tx, chainId, block - 1n);
}

function errMsg(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The v3 pools whose ERC20 balance changes a wallets-mode batch keeps (pricing caps a v3 pool's
 * depth by what it holds, read from erc20_balances as in full mode): pools the follower knows
 * and pools the batch creates.
 *
 * @example
 * const kept = mode.filter(batch, v3PoolHolders(batch, pools));
 */
export function v3PoolHolders(
  batch: { poolEvents: readonly { kind: string; pool: string; dex?: string }[] },
  known: ReadonlyMap<string, PoolState>,
): (wallet: string) => boolean {
  const created = new Set(
    batch.poolEvents
      .filter((e) => e.kind === 'created' && e.dex === 'uniswap_v3')
      .map((e) => e.pool),
  );
  return (w) => created.has(w) || known.get(w)?.dex === 'uniswap_v3';
}
