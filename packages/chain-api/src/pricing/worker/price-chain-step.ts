import type { Database } from '@sluice/db';
import type { ChainConfig } from '../../chains/index.js';
import { BaseError } from '../../errors/index.js';
import { anchorsOf, type PricingAnchors } from '../route/anchors.js';
import { affectedTokens, RouteBook } from '../route/route-book.js';
import type { CompactionPolicy } from '../store/compact-history.js';
import {
  loadChangedPools,
  loadDecimals,
  loadHeldBalances,
  loadRoutePools,
  loadStatesAt,
  type PoolInfo,
  type PoolState,
} from '../store/pool-reader.js';
import {
  insertPriceHistory,
  type PricePoint,
  propagateWrappedPrice,
  upsertTokenPrices,
} from '../store/price-writer.js';
import type { PricingThresholds } from '../thresholds.js';
import { thinPoints } from './thin-points.js';

/** A reorg rolled the cursor back while a step was computing; the step is retried. */
export class StaleCursorError extends BaseError<'STALE_CURSOR'> {
  override name = 'StaleCursorError';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: 'STALE_CURSOR', cause: options.cause });
  }
}

/** What one chain's worker remembers between steps. */
export interface ChainStepState {
  chain: ChainConfig;
  anchors: PricingAnchors;
  /** Tokens to re-price at the next step without a pool change (startup sweep, pending decimals). */
  retry: Set<string>;
  /** First time (ms) a step was held back by token metadata the indexer has not fetched yet. */
  pendingSince: number | null;
  swept: boolean;
  cursorReady: boolean;
}

/** Result of one step: how far it got and whether more blocks are waiting. */
export interface StepResult {
  fromBlock: bigint;
  toBlock: bigint;
  points: number;
  more: boolean;
  headBlock: bigint | null;
}

export interface StepOptions {
  thresholds: PricingThresholds;
  maxBlocks: bigint;
  /** How long to wait for the indexer's token metadata before pricing without it. */
  pendingGraceMs: number;
  /** History thinning (points compaction would delete are never written). */
  compaction: CompactionPolicy;
  now?: () => number;
}

/** Creates the worker state of a chain. */
export function newChainStepState(chain: ChainConfig): ChainStepState {
  return {
    chain,
    anchors: anchorsOf(chain),
    retry: new Set(),
    pendingSince: null,
    swept: false,
    cursorReady: false,
  };
}

async function ensureCursor(
  db: Database,
  s: ChainStepState,
): Promise<{ lastBlock: bigint; epoch: string }> {
  const { chainId } = s.chain;
  if (s.cursorReady) {
    const { rows } = await db.query<{ last_block: string; epoch: string }>(
      'select last_block, epoch from pricing_cursors where chain_id = $1',
      [chainId],
    );
    const row = rows[0];
    if (row) return { lastBlock: BigInt(row.last_block), epoch: row.epoch };
  }
  s.cursorReady = true;
  // First step of this process: create the cursor, record the chain's anchors for the queries.
  const { rows } = await db.query<{ last_block: string; epoch: string }>(
    `insert into pricing_cursors (chain_id, last_block, wrapped_native, stablecoins)
     values ($1, -1, $2, $3::text[])
     on conflict (chain_id) do update set wrapped_native = excluded.wrapped_native,
       stablecoins = excluded.stablecoins
     returning last_block, epoch`,
    [chainId, s.anchors.wrappedNative ?? null, [...s.anchors.stablecoins]],
  );
  const row = rows[0]!;
  return { lastBlock: BigInt(row.last_block), epoch: row.epoch };
}

async function routeTokensOfChain(
  db: Database,
  chainId: number,
  quotes: string[],
): Promise<string[]> {
  const { rows } = await db.query<{ token: string }>(
    `select token0 as token from pools where chain_id = $1 and token1 = any($2::text[])
     union select token1 from pools where chain_id = $1 and token0 = any($2::text[])`,
    [chainId, quotes],
  );
  return rows.map((r) => r.token);
}

function groupByBlock(changes: (PoolState & PoolInfo)[]): (PoolState & PoolInfo)[][] {
  const groups: (PoolState & PoolInfo)[][] = [];
  let current: (PoolState & PoolInfo)[] = [];
  for (const c of changes) {
    if (current.length > 0 && current[0]!.blockNumber !== c.blockNumber) {
      groups.push(current);
      current = [];
    }
    current.push(c);
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/**
 * Turns the pool states of the next range of indexed blocks into price points and current
 * prices, in one transaction guarded by the cursor's epoch (a concurrent reorg rollback makes it
 * throw StaleCursorError and write nothing).
 *
 * @example
 * const r = await priceChainStep(db, state, {
 *   thresholds, maxBlocks: 2000n, pendingGraceMs: 30_000, compaction: DEFAULT_COMPACTION,
 * });
 */
export async function priceChainStep(
  db: Database,
  s: ChainStepState,
  opts: StepOptions,
): Promise<StepResult> {
  const now = opts.now ?? Date.now;
  const { chainId } = s.chain;
  const { anchors } = s;
  const wrapped = anchors.wrappedNative;
  const quotes = [...anchors.stablecoins, ...(wrapped ? [wrapped] : [])];
  const cursor = await ensureCursor(db, s);
  const cp = await db.query<{ indexed_block: string; indexed_time: Date | string | null }>(
    'select indexed_block, indexed_time from checkpoints where chain_id = $1',
    [chainId],
  );
  const head = cp.rows[0] ? BigInt(cp.rows[0].indexed_block) : null;
  const from = cursor.lastBlock;
  const idle: StepResult = {
    fromBlock: from,
    toBlock: from,
    points: 0,
    more: false,
    headBlock: head,
  };
  if (head === null || quotes.length === 0) return idle;
  const to = head > from + opts.maxBlocks ? from + opts.maxBlocks : head > from ? head : from;

  const dirty = await db.query<{ token: string }>(
    'select token from token_prices where chain_id = $1 and dirty',
    [chainId],
  );
  // s.retry is only replaced once the step commits, so a held or aborted step loses nothing.
  const extra = new Set<string>(s.retry);
  const nextRetry = new Set<string>();
  for (const r of dirty.rows) if (r.token !== 'native') extra.add(r.token);
  if (!s.swept && from >= 0n) {
    for (const t of await routeTokensOfChain(db, chainId, quotes)) extra.add(t);
  }
  if (to === from && extra.size === 0) return idle;

  const changes = to > from ? await loadChangedPools(db, chainId, from, to) : [];
  const blocks = groupByBlock(changes);
  const touched = new Set<string>(extra);
  for (const c of changes) for (const t of affectedTokens(c, anchors)) touched.add(t);
  if (wrapped && touched.has(wrapped)) for (const st of anchors.stablecoins) touched.add(st);

  const routePools = await loadRoutePools(
    db,
    chainId,
    [...touched, ...(wrapped ? [wrapped] : [])],
    quotes,
  );
  const poolTokens = new Set<string>(touched);
  for (const p of routePools) {
    poolTokens.add(p.token0);
    poolTokens.add(p.token1);
  }
  const { decimals, pending } = await loadDecimals(db, chainId, [...poolTokens]);
  if (pending.size > 0) {
    s.pendingSince ??= now();
    // Hold the cursor while the indexer fetches metadata, so the first points are not lost; past
    // the grace period, go on and retry those tokens at each step until their decimals arrive.
    // A quote token (stablecoin, wrapped native) is waited for without limit: every route needs it.
    const quotePending = quotes.some((q) => pending.has(q));
    if (quotePending || now() - s.pendingSince < opts.pendingGraceMs) return idle;
  } else {
    s.pendingSince = null;
  }
  const routeByAddress = new Map(routePools.map((p) => [p.address, p]));
  const held = await loadHeldBalances(
    db,
    chainId,
    routePools.filter((p) => p.type === 'uniswap_v3').map((p) => p.address),
  );
  const book = new RouteBook(anchors, opts.thresholds, routePools, decimals, held);
  const start = await loadStatesAt(db, chainId, [...routeByAddress.keys()], from);
  for (const [address, state] of start) book.setState(routeByAddress.get(address)!, state);

  const points: PricePoint[] = [];
  const current = new Map<string, PricePoint | null>();
  let wrappedPoint: PricePoint | null | undefined;
  const priceAt = (token: string, blockNumber: bigint, time: Date, record: boolean): void => {
    const price = book.price(token);
    const point = price ? { token, blockNumber, time, price } : null;
    if (point && record) points.push(point);
    current.set(token, point);
    if (token === wrapped) wrappedPoint = point;
  };
  for (const group of blocks) {
    const first = group[0]!;
    const moved = new Set<string>();
    for (const c of group) {
      const info = routeByAddress.get(c.address);
      if (info) book.setState(info, c);
      for (const t of affectedTokens(c, anchors)) moved.add(t);
    }
    if (wrapped && moved.has(wrapped)) for (const st of anchors.stablecoins) moved.add(st);
    // The wrapped native first: the tokens routed through it use its new price.
    const ordered = [...moved].sort((a, b) => (a === wrapped ? -1 : b === wrapped ? 1 : 0));
    for (const t of ordered) {
      if (pending.has(t) && !decimals.has(t)) nextRetry.add(t);
      else priceAt(t, first.blockNumber, first.blockTime, true);
    }
  }
  const lastTime =
    blocks.at(-1)?.[0]?.blockTime ??
    (cp.rows[0]?.indexed_time ? new Date(cp.rows[0].indexed_time) : new Date(now()));
  for (const t of extra) {
    if (current.has(t) || nextRetry.has(t)) continue;
    if (pending.has(t) && !decimals.has(t)) {
      nextRetry.add(t);
      continue;
    }
    priceAt(t, to, lastTime, false);
  }

  const upserts: PricePoint[] = [];
  const removed: string[] = [];
  for (const [token, point] of current) {
    if (point) upserts.push(point);
    else removed.push(token);
  }
  if (wrapped && wrappedPoint !== undefined) {
    if (wrappedPoint) upserts.push({ ...wrappedPoint, token: 'native' });
    else removed.push('native');
  }

  // Points compaction would delete anyway (old and final) are not written at all.
  const written = thinPoints(points, {
    cutoffMs: now() - opts.compaction.olderThanMs,
    finalizedBlock: head - BigInt(s.chain.finalityDepth),
    bucketMs: opts.compaction.bucketMinutes * 60_000,
  });
  await db.transaction(async (tx) => {
    const moved = await tx.query(
      `update pricing_cursors set last_block = $3::bigint, updated_at = now()
        where chain_id = $1 and epoch = $2::bigint and last_block = $4::bigint`,
      [chainId, cursor.epoch, to.toString(), from.toString()],
    );
    if (moved.rowCount !== 1)
      throw new StaleCursorError(`pricing cursor of chain ${chainId} moved`);
    await insertPriceHistory(tx, chainId, written);
    await upsertTokenPrices(tx, chainId, upserts, removed);
    if (wrapped && wrappedPoint !== undefined) {
      await propagateWrappedPrice(tx, chainId, wrapped, wrappedPoint, opts.thresholds);
    }
  });
  s.swept = true;
  s.retry.clear();
  for (const t of nextRetry) s.retry.add(t);
  return { fromBlock: from, toBlock: to, points: written.length, more: to < head, headBlock: head };
}
