import { ConfigError } from './errors/index.js';

export { ConfigError };

/** Everything `sluice-chain` reads from the environment (chains come from RPC_URL_<id>/CHAINS_FILE). */
export interface AppConfig {
  port: number;
  host: string;
  /** PostgreSQL; unset: embedded PGlite in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
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
  /** In-memory response cache, invalidated by store changes; `maxBytes` 0 turns it off. */
  responseCache: { maxBytes: number; maxAgeMs: number; invalidation: 'scoped' | 'global' };
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** An integer environment setting in [min, max] (ConfigError naming the variable otherwise). */
export function integer(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
) {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

/** `READ_FENCE`: `auto` (default), `on` or `off`. */
function readFenceMode(env: NodeJS.ProcessEnv): 'auto' | 'on' | 'off' {
  const raw = env.READ_FENCE?.trim().toLowerCase() || 'auto';
  if (raw !== 'auto' && raw !== 'on' && raw !== 'off') {
    throw new ConfigError('READ_FENCE', `READ_FENCE must be "auto", "on" or "off", got "${raw}"`);
  }
  return raw;
}

/** `RESPONSE_CACHE_INVALIDATION`: `scoped` (default) or `global` (any change drops everything). */
function invalidationMode(env: NodeJS.ProcessEnv): 'scoped' | 'global' {
  const raw = env.RESPONSE_CACHE_INVALIDATION?.trim().toLowerCase() || 'scoped';
  if (raw !== 'scoped' && raw !== 'global') {
    throw new ConfigError(
      'RESPONSE_CACHE_INVALIDATION',
      `RESPONSE_CACHE_INVALIDATION must be "scoped" or "global", got "${raw}"`,
    );
  }
  return raw;
}

function url(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `${name} is not a URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(
      name,
      `${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`,
    );
  }
  return raw;
}

/**
 * Reads and validates the environment.
 *
 * @example
 * const config = loadConfig({ PORT: '3100', DATABASE_URL: 'postgres://localhost/chain' });
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!logLevels.includes(logLevel)) {
    throw new ConfigError(
      'LOG_LEVEL',
      `LOG_LEVEL must be one of ${logLevels.join(', ')}, got "${logLevel}"`,
    );
  }
  const cursorSecret = env.CURSOR_SECRET?.trim() || undefined;
  if (cursorSecret !== undefined && cursorSecret.length < 32) {
    throw new ConfigError('CURSOR_SECRET', 'CURSOR_SECRET must be at least 32 characters');
  }
  const trustProxy = (env.TRUST_PROXY ?? '').trim().toLowerCase();
  if (!['', 'true', 'false', '1', '0'].includes(trustProxy)) {
    throw new ConfigError(
      'TRUST_PROXY',
      `TRUST_PROXY must be true or false, got "${env.TRUST_PROXY}"`,
    );
  }
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const databaseReadUrls = (env.DATABASE_READ_URL ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry, i) =>
      url({ [`DATABASE_READ_URL entry ${i + 1}`]: entry }, `DATABASE_READ_URL entry ${i + 1}`, [
        'postgres:',
        'postgresql:',
      ]),
    )
    .filter((entry): entry is string => entry !== undefined);
  if (databaseReadUrls.length > 0 && !databaseUrl) {
    throw new ConfigError(
      'DATABASE_READ_URL',
      'DATABASE_READ_URL needs DATABASE_URL (the primary the standbys follow)',
    );
  }
  return {
    port: integer(env, 'PORT', 3100, 0, 65535),
    host: env.HOST?.trim() || '0.0.0.0',
    databaseUrl,
    dataDir: env.DATA_DIR?.trim() || './data',
    databaseReadUrls,
    readMaxWaitMs: integer(env, 'DATABASE_READ_MAX_WAIT_MS', 100, 0, 10_000),
    readFence: readFenceMode(env),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    apiKeys: (env.API_KEYS ?? '')
      .split(',')
      .map((key) => key.trim())
      .filter((key) => key !== ''),
    rateLimit: {
      max: integer(env, 'RATE_LIMIT_MAX', 600, 1, 10_000_000),
      windowMs: integer(env, 'RATE_LIMIT_WINDOW_MS', 60_000, 100, 86_400_000),
      contact: env.RATE_LIMIT_CONTACT?.trim() || 'sales',
    },
    cursorSecret,
    logLevel,
    trustProxy: trustProxy === 'true' || trustProxy === '1',
    keyCacheTtlMs: integer(env, 'KEY_CACHE_TTL_MS', 5_000, 0, 3_600_000),
    responseCache: {
      maxBytes: integer(env, 'RESPONSE_CACHE_MB', 64, 0, 65_536) * 1024 * 1024,
      maxAgeMs: integer(env, 'RESPONSE_CACHE_MAX_AGE_S', 30, 1, 86_400) * 1000,
      invalidation: invalidationMode(env),
    },
  };
}
