import type { Database, Queryable } from '@sluice/db';
import type { ChainConfig } from '../chains/index.js';
import {
  type DeriveContext,
  type DerivedBatch,
  deriveBatch,
  emptyBatch,
  fetchTokenMetadata,
  resolveApprovalStandards,
  type TokenMetadata,
} from '../derive/index.js';
import { BaseError } from '../errors/index.js';
import type { ContractProbes } from '../ingest/contract-probes.js';
import { writeReconciled } from '../reconcile/balance-store.js';
import { applyWrapperMoves, readBalances } from '../reconcile/index.js';
import type { ChainCapabilities, RpcClient } from '../rpc/index.js';
import type { FetchedBlock } from '../rpc/rpc-types.js';
import { announceStoreChange, publishStoreChange } from '../store/changes/publish-store-change.js';
import { StoreChangeBuilder } from '../store/changes/store-change-builder.js';
import { type StoreLogs, writeBatchRows } from '../store/index.js';
import { markReady } from '../store/wallets/tracked-status.js';
import { writeWalletBalances } from '../store/wallets/wallet-balance-rows.js';
import { type DiscoveryMethod, discoverHistory } from './discover-history.js';
import { fetchWalletTxs } from './fetch-wallet-txs.js';
import { filterBatch } from './filter-batch.js';
import type { TxRef } from './log-ranges.js';
import { readWalletBalances, type WalletBalances } from './wallet-balances.js';

/** What a backfill needs from its chain's indexer (the same derivation context and probes). */
export interface BackfillDeps {
  db: Database;
  rpc: RpcClient;
  chain: ChainConfig;
  caps: ChainCapabilities;
  ctx: DeriveContext;
  probes: ContractProbes;
  storeLogs: StoreLogs;
}

/** Where a running backfill is (for /health). */
export interface BackfillProgress {
  phase: 'discover' | 'fetch' | 'derive' | 'commit';
  transactions: number;
  fetched: number;
}

/** Milliseconds each phase of one backfill took (logged with "wallet backfilled"). */
export interface BackfillTimings {
  discover: number;
  fetch: number;
  derive: number;
  commit: number;
}

/** The wallet's tracking changed (reorg below its handover, eviction): this backfill is void. */
export class BackfillSupersededError extends BaseError<'BACKFILL_SUPERSEDED'> {
  override name = 'BackfillSupersededError';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: 'BACKFILL_SUPERSEDED', cause: options.cause });
  }
}

/** Transactions per fetch chunk (whole blocks; keeps each chunk's JSON-RPC batches bounded). */
const FETCH_CHUNK = 500;
/**
 * Fetch chunks in flight at once: the next chunk's headers go out while the previous one's
 * transactions stream in (the RPC client still bounds concurrent HTTP requests).
 */
const FETCH_PARALLEL = 4;

/**
 * Backfills one wallet's history up to its handover block: discovers its transactions
 * (`discoverHistory`), fetches them, derives them with the indexer's own `deriveBatch` and keeps
 * the wallet's rows (`filterBatch`), then commits rows and chain-read balances in one
 * transaction that first checks the tracking row is unchanged (generation, handover).
 *
 * @example
 * await backfillWallet(deps, { wallet, generation: 0, handover: 1234n }, 'ots', onProgress, signal);
 */
export async function backfillWallet(
  deps: BackfillDeps,
  job: { wallet: string; generation: number; handover: bigint },
  method: DiscoveryMethod,
  onProgress: (p: BackfillProgress) => void,
  signal: AbortSignal,
): Promise<{ transactions: number; ms: BackfillTimings }> {
  const { db, rpc, chain, caps } = deps;
  const progress: BackfillProgress = { phase: 'discover', transactions: 0, fetched: 0 };
  const ms: BackfillTimings = { discover: 0, fetch: 0, derive: 0, commit: 0 };
  let t = performance.now();
  const lap = (phase: keyof BackfillTimings) => {
    const now = performance.now();
    ms[phase] = Math.round(now - t);
    t = now;
  };
  onProgress(progress);
  const refs = await discoverHistory(
    rpc,
    method,
    job.wallet,
    chain.startBlock,
    job.handover,
    signal,
  );
  lap('discover');
  progress.phase = 'fetch';
  progress.transactions = refs.length;
  onProgress(progress);
  const fetched: FetchedBlock[] = [];
  const txCounts = new Map<bigint, number>();
  const parts = await mapConcurrent(
    blockChunks(refs, FETCH_CHUNK),
    FETCH_PARALLEL,
    async (part) => {
      signal.throwIfAborted();
      const got = await fetchWalletTxs(rpc, part, caps);
      progress.fetched += part.length;
      onProgress(progress);
      return got;
    },
  );
  for (const part of parts) {
    fetched.push(...part.blocks);
    for (const [n, c] of part.txCounts) txCounts.set(n, c);
  }
  lap('fetch');
  progress.phase = 'derive';
  onProgress(progress);
  let mine: DerivedBatch | null = null;
  let newTokens: TokenMetadata[] = [];
  let wrappers = new Set<string>();
  if (fetched.length > 0) {
    await deps.probes.resolve(fetched, caps.multicall3, job.handover);
    const batch = deriveBatch(fetched, deps.ctx);
    for (const b of batch.blocks) b.txCount = txCounts.get(b.number) ?? b.txCount;
    const filtered = filterBatch(batch, (w) => w === job.wallet, { pools: false });
    newTokens = await tokenMetadata(deps, filtered);
    const standards = await standardsOf(deps, filtered, newTokens);
    wrappers = applyWrapperMoves(filtered, (a) => standards.get(a));
    resolveApprovalStandards(filtered, (a) => standards.get(a));
    mine = filtered;
  }
  const marks = mine ? await conservationMarks(deps, job, mine, wrappers) : new Map();
  lap('derive');
  progress.phase = 'commit';
  onProgress(progress);
  const empty = mine ?? emptyBatch(job.handover, job.handover);
  const readAt = (q: Queryable, at: bigint) =>
    readWalletBalances(q, rpc, caps.multicall3, chain.chainId, job.wallet, empty, at);
  for (let attempt = 1; ; attempt++) {
    signal.throwIfAborted();
    // Balances are read at the checkpoint seen now, outside the commit, which then checks the
    // checkpoint has not moved: RPC reads while holding the checkpoint row would stall the
    // follower and every other backfill's commit. A checkpoint that keeps moving (a fast
    // chain) gets the reads under the lock after OPTIMISTIC_READS tries.
    const seen = attempt <= OPTIMISTIC_READS ? await checkpointAt(db, chain.chainId) : null;
    const early =
      seen !== null && seen.block >= job.handover
        ? { hash: seen.hash, balances: await readAt(db, seen.block) }
        : null;
    try {
      await db.transaction(async (tx) => {
        await commit(tx, early, attempt > OPTIMISTIC_READS);
      });
      break;
    } catch (error) {
      if (!(error instanceof CheckpointMovedError)) throw error;
    }
  }
  lap('commit');
  return { transactions: refs.length, ms };

  async function commit(
    tx: Queryable,
    early: { hash: string; balances: WalletBalances } | null,
    readLocked: boolean,
  ) {
    // Names the wallet and the tokens it holds (published below), so only their cached answers drop.
    await announceStoreChange(tx);
    const change = new StoreChangeBuilder().wallet(chain.chainId, job.wallet);
    // The checkpoint row lock orders this commit with the follower's batches and rollbacks.
    const cp = await tx.query<{ indexed_block: string; indexed_hash: string }>(
      `select indexed_block::text as indexed_block, indexed_hash from checkpoints
        where chain_id = $1 for update`,
      [chain.chainId],
    );
    const row = await tx.query<{ generation: number; handover_block: string | null }>(
      `select generation, handover_block::text as handover_block from tracked_wallets
        where chain_id = $1 and wallet = $2 for update`,
      [chain.chainId, job.wallet],
    );
    const t = row.rows[0];
    const indexed = cp.rows[0]?.indexed_block;
    if (
      !t ||
      indexed === undefined ||
      t.generation !== job.generation ||
      t.handover_block !== job.handover.toString() ||
      BigInt(indexed) < job.handover
    ) {
      throw new BackfillSupersededError(`tracking of ${job.wallet} changed during its backfill`);
    }
    const at = BigInt(indexed);
    // The same block number on another branch (a reorg re-indexed to the same height) is a move.
    let balances =
      early?.balances.block === at && early.hash === cp.rows[0]?.indexed_hash
        ? early.balances
        : null;
    if (!balances) {
      if (!readLocked) throw new CheckpointMovedError();
      balances = await readAt(tx, at);
    }
    if (mine) {
      await writeBatchRows(
        tx,
        {
          chainId: chain.chainId,
          batch: {
            ...mine,
            erc20Deltas: new Map(),
            nft721: new Map(),
            nft1155: new Map(),
            nativeTouched: new Set(),
          },
          nativeBalances: new Map(),
          newTokens,
          pools: { created: [], changed: [], states: [] },
          pruneUndoBelow: 0n,
          storeLogs: deps.storeLogs,
        },
        { idempotent: true, change },
      );
      for (const a of mine.activity) change.token(chain.chainId, a.tokenAddress);
    }
    for (const token of balances.erc20.keys()) change.token(chain.chainId, token);
    for (const key of [...balances.erc1155.keys(), ...balances.erc721]) {
      change.collection(chain.chainId, key.split('|')[0]);
    }
    // Rows at or below the handover: a reorg below it resets the wallet (wallets-mode.ts), no undo.
    await writeWalletBalances(tx, null, chain.chainId, job.wallet, empty, balances);
    if (marks.size > 0) {
      await writeReconciled(
        tx,
        chain.chainId,
        {
          updates20: [],
          updates1155: [],
          inserts20: [],
          marks,
          readErrors: new Map(),
          reconciledBlock: null,
        },
        null,
        null,
      );
    }
    await markReady(tx, chain.chainId, job.wallet, at, { transactions: refs.length });
    await publishStoreChange(tx, change);
  }
}

/** The follower moved the checkpoint between the balance reads and the commit: read again. */
class CheckpointMovedError extends BaseError<'CHECKPOINT_MOVED'> {
  override name = 'CheckpointMovedError';
  constructor(message = 'the checkpoint moved before the commit') {
    super(message, { code: 'CHECKPOINT_MOVED' });
  }
}

/** Balance reads outside the commit before they are done under the checkpoint lock. */
const OPTIMISTIC_READS = 3;

async function checkpointAt(
  db: Queryable,
  chainId: number,
): Promise<{ block: bigint; hash: string } | null> {
  const { rows } = await db.query<{ indexed_block: string; indexed_hash: string }>(
    'select indexed_block::text as indexed_block, indexed_hash from checkpoints where chain_id = $1',
    [chainId],
  );
  const r = rows[0];
  return r ? { block: BigInt(r.indexed_block), hash: r.indexed_hash } : null;
}

/** `refs` (sorted by block) cut into runs of about `size`, never splitting a block. */
function blockChunks(refs: readonly TxRef[], size: number): TxRef[][] {
  const out: TxRef[][] = [];
  let current: TxRef[] = [];
  for (const r of refs) {
    const last = current[current.length - 1];
    if (current.length >= size && last && last.block !== r.block) {
      out.push(current);
      current = [];
    }
    current.push(r);
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** `fn` over `items` with at most `limit` running at once; results in input order. */
async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

async function tokenMetadata(deps: BackfillDeps, batch: DerivedBatch): Promise<TokenMetadata[]> {
  const all = [...batch.tokens.keys()];
  if (all.length === 0) return [];
  const { rows } = await deps.db.query<{ address: string }>(
    'select address from tokens where chain_id = $1 and address = any($2::text[])',
    [deps.chain.chainId, all],
  );
  const known = new Set(rows.map((r) => r.address));
  const hints = new Map([...batch.tokens].map(([a, t]) => [a, t.hint]));
  return fetchTokenMetadata(
    deps.rpc,
    all.filter((a) => !known.has(a)),
    { multicall3: deps.caps.multicall3, hints },
  );
}

async function standardsOf(
  deps: BackfillDeps,
  batch: DerivedBatch,
  fresh: readonly TokenMetadata[],
): Promise<Map<string, string>> {
  const { rows } = await deps.db.query<{ address: string; standard: string }>(
    'select address, standard from tokens where chain_id = $1 and address = any($2::text[])',
    [deps.chain.chainId, [...batch.tokens.keys()]],
  );
  const out = new Map(rows.map((r) => [r.address, r.standard]));
  for (const t of fresh) out.set(t.address, t.standard);
  return out;
}

/**
 * Tokens this history shows do not conserve balances (as full mode's reconciliation marks them):
 * WETH9-style wrappers, and, when the history is complete (start block 0), tokens whose
 * `balanceOf` at the handover differs from the sum of the wallet's Transfer deltas.
 */
async function conservationMarks(
  deps: BackfillDeps,
  job: { handover: bigint },
  batch: DerivedBatch,
  wrappers: ReadonlySet<string>,
): Promise<Map<string, { reason: string; block: bigint }>> {
  const marks = new Map<string, { reason: string; block: bigint }>();
  for (const t of wrappers) {
    marks.set(t, {
      reason:
        'deposit_withdrawal: balances move with Deposit/Withdrawal events (WETH9-style wrapper)',
      block: job.handover,
    });
  }
  if (deps.chain.startBlock !== 0n) return marks;
  const deltas = [...batch.erc20Deltas.values()].filter((d) => !marks.has(d.token));
  const values = await readBalances(
    deps.rpc,
    deps.caps.multicall3,
    deltas.map((d) => ({ token: d.token, wallet: d.wallet })),
    job.handover,
  );
  deltas.forEach((d, i) => {
    const v = values[i];
    if (v === null || v === undefined || v === d.delta) return;
    const code = d.delta < 0n ? 'negative_delta' : 'balance_mismatch';
    marks.set(d.token, {
      reason: `${code}: balanceOf(${d.wallet}) = ${v} at block ${job.handover}, Transfer deltas give ${d.delta}`,
      block: job.handover,
    });
  });
  return marks;
}
