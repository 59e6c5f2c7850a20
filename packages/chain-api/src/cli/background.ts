import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import type { ChainStatus } from '../api/readiness.js';
import type { ChainConfig } from '../chains/index.js';
import type { AppConfig } from '../config/index.js';
import { startNftWorker } from '../nft/index.js';
import { startPricing } from '../pricing/index.js';
import type { NodeClientRegistry } from '../rpc/index.js';
import { startIndexers } from '../wallets/start-indexers.js';

/** The workers behind the API: indexers, pricing and the NFT metadata/spam worker. */
export interface Background {
  status(): ChainStatus[];
  stop(): Promise<void>;
}

export async function startBackground(opts: {
  db: Database;
  chains: ChainConfig[];
  log: Logger;
  /** Metadata server of the local devnet: the only private host the NFT fetcher may reach. */
  devnetMetadataUrl?: string | undefined;
  config: Pick<AppConfig, 'wallets' | 'nft' | 'pricing' | 'ci' | 'deferIndexesMinBlocks'>;
  /** The process's node clients (the caller closes them). */
  nodes: NodeClientRegistry;
}): Promise<Background> {
  const { db, chains, log, config, nodes } = opts;
  const started: { stop(): Promise<void> }[] = [];
  const stopAll = async () => {
    // Consumers of the store first, then the indexer that feeds them.
    for (const worker of [...started].reverse()) await worker.stop();
  };
  try {
    return await startAll();
  } catch (error) {
    await stopAll().catch(() => {});
    throw error;
  }

  async function startAll(): Promise<Background> {
    const indexers = await startIndexers({
      db,
      chains,
      log: log.child({ worker: 'indexer' }),
      wallets: config.wallets,
      plainProgress: config.ci,
      deferIndexesMinBlocks: config.deferIndexesMinBlocks,
      nodes,
    });
    started.push(indexers);
    const pricing = await startPricing({
      db,
      chains,
      log: log.child({ worker: 'pricing' }),
      thresholds: config.pricing,
    });
    started.push(pricing);
    const nftEnv = config.nft;
    // The devnet serves its NFT metadata from a local HTTP server: exempt that host only from the
    // SSRF guard (a redirect from it elsewhere is still checked).
    const allowHosts = [
      ...(nftEnv.allowHosts ?? []),
      ...(opts.devnetMetadataUrl ? [new URL(opts.devnetMetadataUrl).host] : []),
    ];
    const nft = await startNftWorker({
      ...nftEnv,
      db,
      chains,
      nodes,
      log: log.child({ worker: 'nft' }),
      ...(allowHosts.length > 0 ? { allowHosts } : {}),
    });
    started.push(nft);
    return { status: () => indexers.status(), stop: stopAll };
  }
}
