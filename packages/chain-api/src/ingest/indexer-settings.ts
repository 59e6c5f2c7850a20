import type { ChainConfig } from '../chains/index.js';
import { standardRegistry } from '../decode/index.js';
import { type DeriveContext, type DerivedBatch, paymentTokensOf } from '../derive/index.js';
import type { ReconcilePlan } from '../reconcile/index.js';
import type { ContractProbes } from './contract-probes.js';
import type { ModeStatus } from './indexer-mode.js';
import type { ChainIndexerOptions, IndexStats } from './indexer-types.js';

/** The indexer's tuning with every default filled in. */
export type IndexerSettings = Required<
  Omit<ChainIndexerOptions, 'rpc' | 'nodes' | 'log' | 'rpcOptions' | 'reconcile' | 'mode'>
>;

export function indexerSettings<S extends ModeStatus>(
  options: ChainIndexerOptions<S>,
): IndexerSettings {
  return {
    batchSize: options.batchSize ?? 50,
    maxBatchSize: options.maxBatchSize ?? 500,
    concurrency: options.concurrency ?? 4,
    pollIntervalMs: options.pollIntervalMs ?? 250,
    standbyRetryMs: options.standbyRetryMs ?? 1000,
    storeLogs: options.storeLogs ?? 'undecoded',
    readyLagBlocks: options.readyLagBlocks ?? 64,
    plainProgress: options.plainProgress ?? false,
    deferIndexesMinBlocks: options.deferIndexesMinBlocks ?? 0,
  };
}

export function emptyStats(): IndexStats {
  return {
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
}

/** Adds a committed batch to the stats. */
export function countBatch(stats: IndexStats, batch: DerivedBatch, plan: ReconcilePlan): void {
  stats.balanceReads += plan.cost.reads;
  stats.balanceCalls += plan.cost.calls;
  stats.blocks += batch.blocks.length;
  stats.events += batch.eventCount;
  stats.activityRows += batch.activity.length;
  stats.batches++;
}

/** What derivation needs to know about the chain (`traces` is set once the node is probed). */
export function deriveContextOf(chain: ChainConfig, probes: ContractProbes): DeriveContext {
  return {
    poolTokens: probes.poolTokens,
    isErc721: probes.isErc721,
    chainId: chain.chainId,
    wrappedNative: chain.wrappedNative?.toLowerCase(),
    v2Factories: new Set(chain.uniswapV2Factories.map((a) => a.toLowerCase())),
    v3Factories: new Set(chain.uniswapV3Factories.map((a) => a.toLowerCase())),
    registry: standardRegistry(),
    paymentTokens: paymentTokensOf(chain),
    traces: false,
  };
}

/** Grow ranges on sparse chains, shrink them on dense ones (bounded memory and txn size). */
export function nextBatchSize(current: number, logs: number, max: number): number {
  if (logs > 20_000 && current > 1) return Math.max(1, Math.floor(current / 2));
  if (logs < 2_000 && current < max) return Math.min(max, current * 2);
  return current;
}
