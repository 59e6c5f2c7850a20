import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import {
  type DeriveContext,
  type DerivedBatch,
  deriveBatch,
  fetchNativeBalances,
  fetchTokenMetadata,
  type PoolState,
  resolveApprovalStandards,
  type TokenMetadata,
} from '../derive/index.js';
import type { BatchReads, Reconciler } from '../reconcile/index.js';
import type { ChainCapabilities, RpcClient } from '../rpc/index.js';
import type { BalanceSteps } from '../store/subscriptions/balance-items.js';
import { readBalanceSteps } from './balance-steps.js';
import type { ContractProbes } from './contract-probes.js';
import { fetchRange } from './fetch-range.js';
import type { IndexerMode } from './indexer-mode.js';
import type { IndexStats } from './indexer-types.js';
import type { TokenStandards } from './token-standards.js';
import { readUnstoredWatch, type UnstoredWatch } from './unstored-watch.js';

/** A batch ready to write: derived rows plus what was read from the node for them. */
export interface Prepared {
  batch: DerivedBatch;
  nativeBalances: Map<string, bigint>;
  newTokens: TokenMetadata[];
  reads: BatchReads;
  /** Watched balances inside a batch of several blocks, for per-block balances items. */
  balanceSteps?: BalanceSteps | undefined;
  /** Webhooks' view of watched wallets the store does not hold whole (never written). */
  unstored?: UnstoredWatch | undefined;
}

/** The indexer's parts a batch is prepared with. */
export interface PrepareDeps {
  db: Database;
  rpc: RpcClient;
  caps: ChainCapabilities;
  probes: ContractProbes;
  ctx: DeriveContext;
  mode: IndexerMode | undefined;
  /** The indexer's pool cache at the time the batch is filtered. */
  pools: () => ReadonlyMap<string, PoolState>;
  standards: TokenStandards;
  reconciler: Reconciler;
  log: Logger;
  stats: IndexStats;
}

/**
 * Fetch + derive blocks `from..to`, then read what the batch needs from the node (new tokens'
 * metadata, native balances, balances to reconcile). Adds its timings to `deps.stats`.
 *
 * @example
 * const prepared = await prepareBatch(deps, 100n, 149n, false);
 */
export async function prepareBatch(
  deps: PrepareDeps,
  from: bigint,
  to: bigint,
  following: boolean,
): Promise<Prepared> {
  const { rpc, caps, standards } = deps;
  const t0 = performance.now();
  const fetched = await fetchRange(rpc, caps, from, to);
  // Swap emitters and non-indexed Transfers need a one-time check of the contract (I/O).
  await deps.probes.resolve(fetched, caps.multicall3, to);
  const t1 = performance.now();
  const derived = deriveBatch(fetched, deps.ctx);
  const batch = deps.mode ? deps.mode.filter(derived, deps.pools()) : derived;
  const t2 = performance.now();
  deps.stats.fetchMs += t1 - t0;
  deps.stats.deriveMs += t2 - t1;
  const missing = await standards.load(deps.db, [...batch.tokens.keys()]);
  const hints = new Map([...batch.tokens].map(([a, t]) => [a, t.hint]));
  const newTokens = await fetchTokenMetadata(rpc, missing, { multicall3: caps.multicall3, hints });
  const fresh = new Map(newTokens.map((t) => [t.address, t.standard]));
  const standardOf = (a: string) => fresh.get(a) ?? standards.get(a);
  resolveApprovalStandards(batch, standardOf);
  const { balances } = await fetchNativeBalances(rpc, [...batch.nativeTouched], to, {
    multicall3: caps.multicall3,
    log: deps.log,
  });
  const reads = await deps.reconciler.prepare(batch, to, following, standardOf);
  const { db, mode } = deps;
  const chainId = deps.ctx.chainId;
  const unstored = mode
    ? await readUnstoredWatch(
        { db, rpc, caps, chainId, mode, standards },
        { derived, kept: batch },
        standardOf,
      )
    : undefined;
  // The batch webhook items are built from: the unfiltered one when it has their wallets' rows.
  const seen = unstored?.batch ?? batch;
  const balanceSteps = await readBalanceSteps(db, rpc, caps.multicall3, chainId, seen);
  deps.stats.enrichMs += performance.now() - t2;
  return { batch, nativeBalances: balances, newTokens, reads, balanceSteps, unstored };
}
