import { ConfigError } from '../errors/index.js';
import type { AppConfig } from './app-config.js';
import { defaultPoolSize } from './database-pool-config.js';
import { boolean, type Env, integer, list, oneOf, text, url } from './env-readers.js';
import { nftConfigFromEnv } from './nft-config.js';
import { pricingThresholdsFromEnv } from './pricing-config.js';
import { requestLimitsFromEnv } from './request-limits-config.js';
import { walletsOptionsFromEnv } from './wallets-config.js';
import { webhooksConfigFromEnv } from './webhooks-config.js';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** RPC_URL_<id> and CHAINS_FILE, the variables `loadChainConfigs` parses. */
function chainEnv(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && (name === 'CHAINS_FILE' || name.startsWith('RPC_URL_'))) {
      out[name] = value;
    }
  }
  return out;
}

/** DATABASE_READ_URL: standbys, comma-separated; each entry named by its position. */
function readUrls(env: Env): string[] {
  return list(env, 'DATABASE_READ_URL')
    .map((entry, i) => {
      const name = `DATABASE_READ_URL entry ${i + 1}`;
      return url({ [name]: entry }, name, ['postgres:', 'postgresql:']);
    })
    .filter((entry): entry is string => entry !== undefined);
}

/** The configuration of this process, from its environment (the one place that reads it). */
export function loadProcessConfig(): AppConfig {
  return loadConfig(process.env);
}

/**
 * Reads and validates the environment.
 *
 * @example
 * const config = loadConfig({ PORT: '3100', DATABASE_URL: 'postgres://localhost/chain' });
 */
export function loadConfig(env: Env): AppConfig {
  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!logLevels.includes(logLevel)) {
    throw new ConfigError(
      'LOG_LEVEL',
      `LOG_LEVEL must be one of ${logLevels.join(', ')}, got "${logLevel}"`,
    );
  }
  const cursorSecret = text(env, 'CURSOR_SECRET');
  if (cursorSecret !== undefined && cursorSecret.length < 32) {
    throw new ConfigError('CURSOR_SECRET', 'CURSOR_SECRET must be at least 32 characters');
  }
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const databaseReadUrls = readUrls(env);
  if (databaseReadUrls.length > 0 && !databaseUrl) {
    throw new ConfigError(
      'DATABASE_READ_URL',
      'DATABASE_READ_URL needs DATABASE_URL (the primary the standbys follow)',
    );
  }
  return {
    port: integer(env, 'PORT', 3100, 0, 65535),
    host: text(env, 'HOST') ?? '0.0.0.0',
    hostSet: Boolean(env.HOST),
    databaseUrl,
    dataDir: text(env, 'DATA_DIR') ?? './data',
    database: {
      statementTimeoutMs: integer(env, 'DB_STATEMENT_TIMEOUT_MS', 5_000, 0, 86_400_000),
      connectTimeoutMs: integer(env, 'DB_CONNECT_TIMEOUT_MS', 5_000, 0, 86_400_000),
      poolSize: integer(env, 'DB_POOL_SIZE', defaultPoolSize(), 1, 1_000),
    },
    databaseReadUrls,
    readMaxWaitMs: integer(env, 'DATABASE_READ_MAX_WAIT_MS', 100, 0, 10_000),
    readFence: oneOf(env, 'READ_FENCE', ['auto', 'on', 'off'], 'auto'),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    apiKeys: list(env, 'API_KEYS'),
    rateLimit: {
      max: integer(env, 'RATE_LIMIT_MAX', 600, 1, 10_000_000),
      windowMs: integer(env, 'RATE_LIMIT_WINDOW_MS', 60_000, 100, 86_400_000),
      contact: text(env, 'RATE_LIMIT_CONTACT') ?? 'sales',
    },
    cursorSecret,
    logLevel,
    trustProxy: boolean(env, 'TRUST_PROXY', false),
    keyCacheTtlMs: integer(env, 'KEY_CACHE_TTL_MS', 5_000, 0, 3_600_000),
    limits: requestLimitsFromEnv(env),
    keyLookups: {
      perIp: integer(env, 'KEY_LOOKUPS_PER_IP', 120, 1, 10_000_000),
      windowMs: integer(env, 'KEY_LOOKUP_WINDOW_MS', 60_000, 100, 86_400_000),
      unknownKeyTtlMs: integer(env, 'UNKNOWN_KEY_CACHE_MS', 30_000, 0, 3_600_000),
    },
    responseCache: {
      maxBytes: integer(env, 'RESPONSE_CACHE_MB', 64, 0, 65_536) * 1024 * 1024,
      // A backstop only: every store write announces what it changed, and an entry dies with
      // its scope. A short one made a wallet read less often than this miss although nothing of
      // it changed (most of a 40,000-URL live mix at 1,500 req/s).
      maxAgeMs: integer(env, 'RESPONSE_CACHE_MAX_AGE_S', 600, 1, 86_400) * 1000,
      invalidation: oneOf(env, 'RESPONSE_CACHE_INVALIDATION', ['scoped', 'global'], 'scoped'),
    },
    chainEnv: chainEnv(env),
    wallets: walletsOptionsFromEnv(env),
    nft: nftConfigFromEnv(env),
    pricing: pricingThresholdsFromEnv(env),
    webhooks: webhooksConfigFromEnv(env),
    deferIndexesMinBlocks: integer(env, 'DEFER_INDEXES_MIN_BLOCKS', 1_000, 0, 1_000_000_000),
    ci: env.CI === 'true',
    devnet: {
      anvilPath: env.ANVIL_PATH || undefined,
      path: env.PATH,
      contractsCache: text(env, 'SLUICE_CONTRACTS_CACHE'),
      demoWebhook: demoWebhook(env),
    },
  };
}

function demoWebhook(env: Env): { url: string; secret: string } | undefined {
  const url = text(env, 'SLUICE_DEMO_WEBHOOK_URL');
  const secret = text(env, 'SLUICE_DEMO_WEBHOOK_SECRET');
  return url && secret ? { url, secret } : undefined;
}
