import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import type { ChainStatus } from '../api/readiness.js';
import type { ChainConfig } from '../chains/index.js';
import { startIndexers } from '../ingest/index.js';
import { nftConfigFromEnv, startNftWorker } from '../nft/index.js';
import { startPricing } from '../pricing/index.js';

/** The workers behind the API: indexers, pricing and the NFT metadata/spam worker. */
export interface Background {
  status(): ChainStatus[];
  stop(): Promise<void>;
}

export async function startBackground(opts: {
  db: Database;
  chains: ChainConfig[];
  log: Logger;
  devnet: boolean;
  env?: NodeJS.ProcessEnv;
}): Promise<Background> {
  const { db, chains, log } = opts;
  const indexers = await startIndexers({ db, chains, log: log.child({ worker: 'indexer' }) });
  const pricing = await startPricing({ db, chains, log: log.child({ worker: 'pricing' }) });
  const nft = await startNftWorker({
    ...nftConfigFromEnv(opts.env ?? process.env),
    db,
    chains,
    log: log.child({ worker: 'nft' }),
    // The devnet serves its NFT metadata from a local HTTP server.
    ...(opts.devnet ? { allowPrivateHosts: true } : {}),
  });
  return {
    status: () => indexers.status(),
    async stop() {
      // Stop consumers of the store before the indexer that feeds them.
      await nft.stop();
      await pricing.stop();
      await indexers.stop();
    },
  };
}
