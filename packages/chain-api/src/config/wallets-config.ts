import { type Env, integer } from './env-readers.js';

/** Wallets-mode tuning (environment, see docs/wallets-mode.md). */
export interface WalletsOptions {
  /**
   * Tracked wallets per chain at most; beyond, the keys tracking the most wallets lose their least
   * recently requested ones first.
   */
  maxWallets: number;
  /** Tracked wallets per API key and chain at most; the key's least recently requested beyond are dropped. */
  maxPerKey: number;
  /** Backfills running at once per chain. */
  concurrency: number;
  /** JSON-RPC calls per second all backfills of a chain may spend. */
  rpcPerSecond: number;
  /** How long a first request waits for the wallet's backfill before answering with a warning. */
  waitMs: number;
}

export const defaultWalletsOptions: WalletsOptions = {
  maxWallets: 100_000,
  maxPerKey: 10_000,
  concurrency: 4,
  rpcPerSecond: 500,
  waitMs: 10_000,
};

/**
 * Reads WALLETS_MAX, WALLETS_MAX_PER_KEY, WALLET_BACKFILL_CONCURRENCY, WALLET_BACKFILL_RPC_PER_SECOND and
 * WALLET_BACKFILL_WAIT_MS.
 *
 * @example
 * const opts = walletsOptionsFromEnv({ WALLET_BACKFILL_WAIT_MS: '2000' }); // waitMs 2000
 */
export function walletsOptionsFromEnv(env: Env): WalletsOptions {
  const d = defaultWalletsOptions;
  return {
    maxWallets: integer(env, 'WALLETS_MAX', d.maxWallets, 1, 100_000_000),
    maxPerKey: integer(env, 'WALLETS_MAX_PER_KEY', d.maxPerKey, 1, 100_000_000),
    concurrency: integer(env, 'WALLET_BACKFILL_CONCURRENCY', d.concurrency, 1, 64),
    rpcPerSecond: integer(env, 'WALLET_BACKFILL_RPC_PER_SECOND', d.rpcPerSecond, 1, 1_000_000),
    waitMs: integer(env, 'WALLET_BACKFILL_WAIT_MS', d.waitMs, 0, 600_000),
  };
}
