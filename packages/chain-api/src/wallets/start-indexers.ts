import {
  type Indexers,
  type IndexStats,
  indexOnce as indexChainsOnce,
  type StartIndexersOptions,
  startIndexers as startChainIndexers,
} from '../ingest/index.js';
import { walletsIndexerMode } from './wallets-indexer-mode.js';
import type { WalletsStatus } from './wallets-mode.js';
import type { WalletsOptions } from './wallets-options.js';

export interface StartAllIndexersOptions extends Omit<StartIndexersOptions, 'mode'> {
  /** Wallets-mode tuning (chains with `"mode": "wallets"`). */
  wallets?: Partial<WalletsOptions>;
}

/**
 * `startIndexers` of src/ingest with wallets mode wired in for chains with `"mode": "wallets"`:
 * what the CLI runs.
 *
 * @example
 * const indexers = await startIndexers({ db, chains, log, wallets: { maxWallets: 1000 } });
 */
export function startIndexers(opts: StartAllIndexersOptions): Promise<Indexers<WalletsStatus>> {
  const { wallets, ...rest } = opts;
  return startChainIndexers({ ...rest, mode: walletsIndexerMode(wallets) });
}

/**
 * `indexOnce` of src/ingest with wallets mode wired in.
 *
 * @example
 * const [stats] = await indexOnce({ db, chains: [chain], log });
 */
export function indexOnce(
  opts: StartAllIndexersOptions & { rpc?: Parameters<typeof indexChainsOnce>[0]['rpc'] },
): Promise<IndexStats[]> {
  const { wallets, ...rest } = opts;
  return indexChainsOnce({ ...rest, mode: walletsIndexerMode(wallets) });
}
