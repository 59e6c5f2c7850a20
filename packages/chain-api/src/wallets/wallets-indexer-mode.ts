import type { IndexerModeFactory } from '../ingest/indexer-mode.js';
import { PoolBootstrap, v3PoolHolders } from './pool-bootstrap.js';
import { WalletsMode, type WalletsStatus } from './wallets-mode.js';
import { defaultWalletsOptions, type WalletsOptions } from './wallets-options.js';

/**
 * Wallets mode as the indexer's mode for chains with `"mode": "wallets"`: the follower keeps
 * tracked wallets' rows (and backfills new wallets); chains with DEX factories also bootstrap
 * the pools created before the start (pricing). Chains in full mode get no mode.
 *
 * @example
 * await startIndexers({ db, chains, log, mode: walletsIndexerMode({ maxWallets: 1000 }) });
 */
export function walletsIndexerMode(
  options: Partial<WalletsOptions> = {},
): IndexerModeFactory<WalletsStatus> {
  const opts = { ...defaultWalletsOptions, ...options };
  return ({ db, chain, rpc, ctx, log, signal, leader }) => {
    if (chain.mode !== 'wallets') return undefined;
    const wallets = new WalletsMode(db, chain, opts, log, leader, signal);
    const bootstrap =
      ctx.v2Factories.size + ctx.v3Factories.size > 0
        ? new PoolBootstrap(
            db,
            chain,
            rpc,
            { v2: ctx.v2Factories, v3: ctx.v3Factories },
            log.child({ component: 'pool-bootstrap' }),
            signal,
          )
        : undefined;
    return {
      followFrom: (head) => wallets.followFrom(head),
      async between({ checkpoint, pools, multicall3, assertHeld }) {
        await wallets.refresh(checkpoint);
        if (!bootstrap) return [];
        return bootstrap.step({ checkpoint, known: pools, multicall3, assertHeld });
      },
      filter: (batch, pools) =>
        wallets.filter(batch, bootstrap ? v3PoolHolders(batch, pools) : undefined),
      stores: (wallet) => wallets.stores(wallet),
      invalidate: () => bootstrap?.invalidate(),
      status: () => ({
        ...wallets.status(),
        ...(bootstrap ? { pool_bootstrap: bootstrap.status() } : {}),
      }),
      stop: () => wallets.stop(),
    };
  };
}
