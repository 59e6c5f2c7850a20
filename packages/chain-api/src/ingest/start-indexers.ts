import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import type { ChainConfig } from '../chains/index.js';
import {
  ChainIndexer,
  type ChainIndexerOptions,
  type ChainStatus,
  type IndexStats,
} from './chain-indexer.js';
import type { ModeStatus } from './indexer-mode.js';

export interface StartIndexersOptions<S extends ModeStatus = ModeStatus>
  extends Omit<ChainIndexerOptions<S>, 'log' | 'rpc'> {
  db: Database;
  chains: readonly ChainConfig[];
  log: Logger;
}

export interface Indexers<S extends ModeStatus = ModeStatus> {
  /** Stops every chain's loop and releases the leader locks. */
  stop(): Promise<void>;
  /** One entry per chain, in `chains` order. */
  status(): ChainStatus<S>[];
}

/**
 * Starts one indexer per chain in this process (each with its own leader lock: on a shared
 * PostgreSQL only one replica indexes a chain at a time, the others wait as standbys and take
 * over when it dies). Expects the schema to be migrated (`chainMigrations`).
 *
 * @example
 * const indexers = await startIndexers({ db, chains, log });
 * app.get('/health', () => indexers.status());
 */
export async function startIndexers<S extends ModeStatus = ModeStatus>(
  opts: StartIndexersOptions<S>,
): Promise<Indexers<S>> {
  const { db, chains, log, ...rest } = opts;
  const indexers = chains.map((chain) => new ChainIndexer<S>(db, chain, { ...rest, log }));
  for (const i of indexers) i.start();
  return {
    async stop() {
      await Promise.all(indexers.map((i) => i.stop()));
    },
    status: () => indexers.map((i) => i.status()),
  };
}

/**
 * Indexes each chain up to its node's current head, then returns per-chain stats.
 * For tests, benchmarks and `sluice-chain index --once`.
 *
 * @example
 * const [stats] = await indexOnce({ db, chains: [chain], log });
 */
export async function indexOnce<S extends ModeStatus = ModeStatus>(
  opts: StartIndexersOptions<S> & { rpc?: ChainIndexerOptions['rpc'] },
): Promise<IndexStats[]> {
  const { db, chains, log, ...rest } = opts;
  const out: IndexStats[] = [];
  for (const chain of chains) {
    const indexer = new ChainIndexer<S>(db, chain, { ...rest, log });
    try {
      out.push(await indexer.indexToHead());
    } finally {
      await indexer.stop();
    }
  }
  return out;
}

export type { ChainStatus, IndexStats };
