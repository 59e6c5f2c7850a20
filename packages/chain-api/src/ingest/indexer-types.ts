import type { Logger } from 'pino';
import type { ReconcileOptions, ReconcileStatus } from '../reconcile/index.js';
import type { NodeClientRegistry, RpcClient, RpcClientOptions } from '../rpc/index.js';
import type { StoreLogs } from '../store/index.js';
import type { IndexerModeFactory, ModeStatus } from './indexer-mode.js';

/** What /health and the API's 503 logic read. */
export interface ChainStatus<S extends ModeStatus = ModeStatus> {
  chain_id: number;
  name: string;
  head_block: number | null;
  indexed_block: number | null;
  lag_seconds: number | null;
  /** false while backfilling, when the RPC is failing, or when no replica is indexing the chain. */
  ready: boolean;
  /** Why indexing of this chain is stopped (e.g. the node serves a replaced chain), with the remedy. */
  error?: string;
  /** Internal native transfers (debug traces): `unsupported` when the node refuses them. */
  traces?: 'supported' | 'unsupported' | 'unknown';
  /** Balance reconciliation (leader only): non-conserving tokens, balance reads per batch. */
  reconcile?: ReconcileStatus;
  /** Wallets mode (`"mode": "wallets"`, leader only): tracked wallets and backfill progress. */
  wallets?: S;
  /**
   * Secondary indexes a cold backfill deferred that are not built yet (leader only, absent once
   * built): the chain reports not ready until they are.
   */
  deferred_indexes?: number;
  /** Reorgs this process repaired since it started (leader only): how many, the deepest in blocks. */
  reorgs?: { count: number; deepest: number };
}

export interface ChainIndexerOptions<S extends ModeStatus = ModeStatus> {
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
  /** The process's node clients: the default client is opened over the node's shared transport. */
  nodes?: NodeClientRegistry;
  /** Balance reconciliation with the chain's balanceOf (src/reconcile); on by default. */
  reconcile?: Partial<ReconcileOptions>;
  /**
   * Builds the chain's mode (wallets mode for chains with `"mode": "wallets"`: see
   * `walletsIndexerMode` in src/wallets); a chain in wallets mode requires it.
   */
  mode?: IndexerModeFactory<S>;
  /** Progress as log lines even on a terminal (the configuration's `ci`). */
  plainProgress?: boolean;
  /**
   * On a fresh store, a chain starting at least this many blocks below the head defers the
   * API-only secondary indexes until a chain is at the head (src/store/deferred-indexes.ts).
   * Default 0: never (the CLI passes `DEFER_INDEXES_MIN_BLOCKS`).
   */
  deferIndexesMinBlocks?: number;
}

/** The last indexed block of a chain, as stored in `checkpoints`. */
export interface Checkpoint {
  block: bigint;
  hash: string;
  time: Date | null;
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
  /** Balances read from the node (pairs) and the JSON-RPC calls that took (reconciliation). */
  balanceReads: number;
  balanceCalls: number;
}
