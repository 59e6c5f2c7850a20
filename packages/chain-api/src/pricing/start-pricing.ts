import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import type { ChainConfig } from '../chains/index.js';
import { compactPriceHistory, DEFAULT_COMPACTION } from './store/compact-history.js';
import { defaultPricingThresholds, type PricingThresholds } from './thresholds.js';
import {
  type ChainStepState,
  newChainStepState,
  priceChainStep,
  StaleCursorError,
} from './worker/price-chain-step.js';

export interface StartPricingOptions {
  db: Database;
  chains: ChainConfig[];
  log: Logger;
  /** From the configuration (PRICING_MIN_LIQUIDITY_USD, LOW_LIQUIDITY_USD); default: the defaults. */
  thresholds?: PricingThresholds;
  /** Poll interval once caught up (default 500 ms). */
  intervalMs?: number;
  /** Most blocks priced per step and transaction (default 2,000). */
  maxBlocksPerStep?: number;
  /** How often old history is compacted (default 60 s). */
  compactEveryMs?: number;
  /** Wait this long for the indexer's token metadata before pricing without it (default 30 s). */
  pendingGraceMs?: number;
}

export interface PricingWorker {
  /** Prices every chain up to its indexed block and returns (for tests, benchmarks, CLI). */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Keeps `token_prices` and `price_history` current from the indexer's pool states: polls each
 * chain's checkpoint, prices new blocks in bounded steps, compacts old history once a minute.
 * Errors are logged and retried at the next tick; the worker never throws after start.
 *
 * @example
 * const pricing = await startPricing({ db, chains, log });
 * // ...
 * await pricing.stop();
 */
export async function startPricing(opts: StartPricingOptions): Promise<PricingWorker> {
  const { db, log } = opts;
  const thresholds = opts.thresholds ?? defaultPricingThresholds;
  const intervalMs = opts.intervalMs ?? 500;
  const compactEveryMs = opts.compactEveryMs ?? 60_000;
  const stepOpts = {
    thresholds,
    maxBlocks: BigInt(opts.maxBlocksPerStep ?? 2_000),
    pendingGraceMs: opts.pendingGraceMs ?? 30_000,
    compaction: DEFAULT_COMPACTION,
  };
  const states: ChainStepState[] = opts.chains.map(newChainStepState);
  const lastCompaction = new Map<number, number>();
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  // Runs are serialized: the timer's and runOnce() callers' never overlap.
  let tail: Promise<void> = Promise.resolve();
  const serial = (fn: () => Promise<void>): Promise<void> => {
    const next = tail.then(fn);
    tail = next.catch(() => undefined);
    return next;
  };

  async function runChain(s: ChainStepState): Promise<void> {
    for (;;) {
      if (stopped) return;
      let result: Awaited<ReturnType<typeof priceChainStep>>;
      try {
        result = await priceChainStep(db, s, stepOpts);
      } catch (error) {
        if (error instanceof StaleCursorError) continue; // a reorg rewound us: redo from the new cursor
        throw error;
      }
      if (result.points > 0) {
        log.debug(
          {
            chain_id: s.chain.chainId,
            from: result.fromBlock,
            to: result.toBlock,
            points: result.points,
          },
          'prices updated',
        );
      }
      const now = Date.now();
      if (!result.more && result.headBlock !== null) {
        if (now - (lastCompaction.get(s.chain.chainId) ?? 0) >= compactEveryMs) {
          lastCompaction.set(s.chain.chainId, now);
          const finalized = result.headBlock - BigInt(s.chain.finalityDepth);
          const deleted = await compactPriceHistory(db, s.chain.chainId, new Date(now), finalized);
          if (deleted > 0)
            log.debug({ chain_id: s.chain.chainId, deleted }, 'price history compacted');
        }
        return;
      }
      if (!result.more) return;
    }
  }

  async function runAll(): Promise<void> {
    for (const s of states) {
      try {
        await runChain(s);
      } catch (error) {
        log.error({ chain_id: s.chain.chainId, err: error }, 'pricing step failed; retrying');
      }
    }
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      void serial(runAll).finally(schedule);
    }, intervalMs);
  }

  void serial(runAll).finally(schedule);

  return {
    runOnce: () => serial(runAll),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await tail;
    },
  };
}
