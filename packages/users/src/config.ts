/** Service configuration, read from the environment once at start-up. */
export interface Config {
  port: number;
  host: string;
  /** PostgreSQL connection string; unset means embedded PGlite in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  tls: { keyFile: string; certFile: string } | undefined;
  /** With TLS: a plain-HTTP port that redirects to HTTPS. */
  httpRedirectPort: number | undefined;
  logLevel: string;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** Longest wait for a request body after its headers, in milliseconds (then 408). */
  bodyTimeoutMs: number;
  /** How long SIGTERM waits for in-flight requests before forcing exit, in milliseconds. */
  shutdownTimeoutMs: number;
  /** PostgreSQL statement timeout in milliseconds (DB_STATEMENT_TIMEOUT_MS; 0: none). */
  dbStatementTimeoutMs: number;
  /** PostgreSQL connection wait in milliseconds (DB_CONNECT_TIMEOUT_MS; 0: none). */
  dbConnectTimeoutMs: number;
}

/** A configuration mistake, reported at start-up before anything listens. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function optional(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Reads the configuration from environment variables (see the README's table).
 *
 * @example
 * const config = loadConfig({ PORT: '8080', DATABASE_URL: 'postgres://localhost/users' });
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const keyFile = optional(env, 'TLS_KEY_FILE');
  const certFile = optional(env, 'TLS_CERT_FILE');
  if ((keyFile === undefined) !== (certFile === undefined)) {
    const missing = keyFile === undefined ? 'TLS_KEY_FILE' : 'TLS_CERT_FILE';
    const present = keyFile === undefined ? 'TLS_CERT_FILE' : 'TLS_KEY_FILE';
    throw new ConfigError(
      `${present} is set but ${missing} is not: set both to serve HTTPS, or neither for HTTP`,
    );
  }
  const tls = keyFile && certFile ? { keyFile, certFile } : undefined;
  const httpRedirectPort =
    optional(env, 'HTTP_REDIRECT_PORT') === undefined
      ? undefined
      : integer(env, 'HTTP_REDIRECT_PORT', 0, 0, 65535);
  if (httpRedirectPort !== undefined && !tls) {
    throw new ConfigError('HTTP_REDIRECT_PORT needs HTTPS: set TLS_KEY_FILE and TLS_CERT_FILE');
  }
  const logLevel = optional(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const databaseUrl = optional(env, 'DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// connection string');
  }
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: optional(env, 'HOST') ?? '127.0.0.1',
    databaseUrl,
    dataDir: optional(env, 'DATA_DIR') ?? './data',
    tls,
    httpRedirectPort,
    logLevel,
    bodyLimit: integer(env, 'BODY_LIMIT', 16 * 1024, 1024, 10 * 1024 * 1024),
    bodyTimeoutMs: integer(env, 'BODY_TIMEOUT_MS', 5_000, 100, 600_000),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    dbStatementTimeoutMs: integer(env, 'DB_STATEMENT_TIMEOUT_MS', 5_000, 0, 86_400_000),
    dbConnectTimeoutMs: integer(env, 'DB_CONNECT_TIMEOUT_MS', 5_000, 0, 86_400_000),
  };
}
