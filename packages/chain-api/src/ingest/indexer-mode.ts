import type { Database, Queryable } from '@sluice/db';
import type { Logger } from 'pino';
import type { ChainConfig } from '../chains/index.js';
import type { DeriveContext, DerivedBatch, PoolState } from '../derive/index.js';
import type { ChainCapabilities, RpcClient } from '../rpc/index.js';
import type { StoreLogs } from '../store/index.js';
import type { ContractProbes } from './contract-probes.js';

/** What a leading indexer shares with its mode (unset while it is a standby or initialising). */
export interface LeaderState {
  rpc: RpcClient;
  caps: ChainCapabilities;
  ctx: DeriveContext;
  probes: ContractProbes;
  storeLogs: StoreLogs;
}

/** What the indexer hands a mode when it builds it. */
export interface IndexerModeContext {
  db: Database;
  chain: ChainConfig;
  rpc: RpcClient;
  ctx: DeriveContext;
  log: Logger;
  signal: AbortSignal;
  leader(): LeaderState | undefined;
}

/** Between two batches, with no batch in flight. */
export interface BetweenBatches {
  checkpoint: { block: bigint; time: Date | null };
  /** The indexer's pool cache. */
  pools: ReadonlyMap<string, PoolState>;
  multicall3: string | null;
  assertHeld: (tx: Queryable) => Promise<void>;
}

/** What the store holds of a wallet (see {@link IndexerMode.stores}). */
export type WalletStorage = 'complete' | 'rows' | 'none';

/** A mode's section of /health (leader only). */
export interface ModeStatus {
  mode: string;
}

/**
 * A chain mode that narrows what the indexer keeps (wallets mode keeps tracked wallets' rows and
 * backfills them). Built from outside (`IndexerModeFactory`), so ingest never imports a mode.
 */
export interface IndexerMode<S extends ModeStatus = ModeStatus> {
  /** Where a chain with no checkpoint starts following, given the node's head. */
  followFrom(head: bigint): ChainConfig;
  /** Runs between batches; returns pools the mode committed (the indexer adds them to its cache). */
  between(input: BetweenBatches): Promise<PoolState[]>;
  /** The part of a derived batch to write. */
  filter(batch: DerivedBatch, pools: ReadonlyMap<string, PoolState>): DerivedBatch;
  /**
   * What the store holds of `wallet`: its rows and complete balances, the batches' rows only
   * (balances still incomplete, e.g. its backfill is running), or nothing (`filter` drops its
   * rows). Webhooks watching a wallet the store does not hold get their items from the unfiltered
   * batch, and their balances from the node while the store's are incomplete.
   */
  stores(wallet: string): WalletStorage;
  /** The store may have changed under the indexer (restart, rollback, reset): reload. */
  invalidate(): void;
  status(): S;
  /** Leadership lost or the indexer stopping: stop background work. */
  stop(): void;
}

/** Builds the mode of a chain, or undefined for a chain indexed in full. */
export type IndexerModeFactory<S extends ModeStatus = ModeStatus> = (
  context: IndexerModeContext,
) => IndexerMode<S> | undefined;
