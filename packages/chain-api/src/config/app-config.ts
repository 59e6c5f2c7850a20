import type { NftEnvOptions } from './nft-config.js';
import type { PricingThresholds } from './pricing-config.js';
import type { RequestLimits } from './request-limits-config.js';
import type { WalletsOptions } from './wallets-config.js';
import type { WebhooksConfig } from './webhooks-config.js';

/**
 * Everything chain-api reads from the environment, parsed once by `loadConfig` and passed down.
 * Chains come from RPC_URL_<id>/CHAINS_FILE (`chainEnv`, parsed by `loadChainConfigs`).
 */
export interface AppConfig {
  port: number;
  host: string;
  /** Whether HOST was set (the devnet listens on 127.0.0.1 unless it was). */
  hostSet: boolean;
  /** PostgreSQL; unset: embedded PGlite in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** The API's PostgreSQL pools (the workers' pool has no statement timeout). */
  database: {
    /** DB_STATEMENT_TIMEOUT_MS (default 5000; 0: none). */
    statementTimeoutMs: number;
    /** DB_CONNECT_TIMEOUT_MS (default 5000; 0: none). */
    connectTimeoutMs: number;
    /** DB_POOL_SIZE: connections of each API pool (default: `defaultPoolSize()`). */
    poolSize: number;
  };
  /** Hot standbys of `databaseUrl` for API reads (DATABASE_READ_URL, comma-separated). */
  databaseReadUrls: string[];
  /** Longest a read waits for a standby to replay a notified batch before using the primary. */
  readMaxWaitMs: number;
  /**
   * `READ_FENCE`: fence each keyed request against the change feed, so a client's answers never
   * go backwards across API processes. `auto` (default): on when this process reads through
   * standbys or hears changes through Redis (deployments of several API processes).
   */
  readFence: 'auto' | 'on' | 'off';
  /** Shared rate-limit counters across replicas; unset: in-process. */
  redisUrl: string | undefined;
  /** Development keys (plaintext, comma-separated), stored hashed at start. */
  apiKeys: string[];
  rateLimit: { max: number; windowMs: number; contact: string };
  /** HMAC secret of pagination cursors; unset: generated once and kept in the database. */
  cursorSecret: string | undefined;
  logLevel: string;
  trustProxy: boolean;
  /** How long a verified key is cached (revocation delay). */
  keyCacheTtlMs: number;
  /** What one API request may cost: deadline, node reads, rows, per-key slots (docs/limits.md). */
  limits: RequestLimits;
  /**
   * Before authentication: key-store lookups one client address may cause per window (cache
   * misses; KEY_LOOKUPS_PER_IP, KEY_LOOKUP_WINDOW_MS) and how long an unknown key is answered
   * 401 from memory (UNKNOWN_KEY_CACHE_MS).
   */
  keyLookups: { perIp: number; windowMs: number; unknownKeyTtlMs: number };
  /** In-memory response cache, invalidated by store changes; `maxBytes` 0 turns it off. */
  responseCache: { maxBytes: number; maxAgeMs: number; invalidation: 'scoped' | 'global' };
  /** The chain variables alone (RPC_URL_<id>, CHAINS_FILE), for `loadChainConfigs`. */
  chainEnv: Readonly<Record<string, string>>;
  /** Wallets mode (WALLETS_MAX, WALLET_BACKFILL_*). */
  wallets: WalletsOptions;
  /** NFT metadata and spam worker (NFT_*). */
  nft: NftEnvOptions;
  /** Pricing liquidity thresholds (PRICING_MIN_LIQUIDITY_USD, LOW_LIQUIDITY_USD). */
  pricing: PricingThresholds;
  /** Webhook subscriptions and their deliveries (WEBHOOK_*). */
  webhooks: WebhooksConfig;
  /**
   * DEFER_INDEXES_MIN_BLOCKS (default 1000; 0: never): on a fresh store, a chain starting at least
   * this many blocks below its head builds the API-only secondary indexes after the backfill.
   */
  deferIndexesMinBlocks: number;
  /** `CI=true`: backfill progress as log lines even on a terminal. */
  ci: boolean;
  /** The local devnet: ANVIL_PATH and PATH (where anvil is looked for), SLUICE_CONTRACTS_CACHE. */
  devnet: {
    anvilPath: string | undefined;
    path: string | undefined;
    contractsCache: string | undefined;
    /**
     * A webhook receiver the devnet banner shows how to subscribe (SLUICE_DEMO_WEBHOOK_URL and
     * SLUICE_DEMO_WEBHOOK_SECRET, set by the repository's `npm start` for its demo receiver).
     */
    demoWebhook: { url: string; secret: string } | undefined;
  };
}
