import { networkInterfaces } from 'node:os';

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
  /**
   * Hostnames the `Host` header may name (lower-case, IPv6 without brackets), or `'*'` for any.
   * Default: the listen address (every local address when it is a wildcard) and localhost names.
   */
  allowedHosts: string[] | '*';
  /** Other origins (`https://admin.example.com`) trusted to send state-changing requests. */
  allowedOrigins: string[];
  /** Longest `/health` waits for the database before answering 503, in milliseconds. */
  healthTimeoutMs: number;
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

const LOCALHOST_NAMES = ['localhost', '127.0.0.1', '::1'];
const HOSTNAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
const IPV6 = /^[0-9a-f:.]+$/;

function list(env: NodeJS.ProcessEnv, name: string): string[] {
  return (optional(env, name) ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
}

/** The listen address, every local address when it is a wildcard, and localhost names. */
function defaultHosts(host: string): string[] {
  const names = new Set(LOCALHOST_NAMES);
  if (host === '0.0.0.0' || host === '::') {
    for (const addresses of Object.values(networkInterfaces())) {
      for (const { address } of addresses ?? []) names.add(address.toLowerCase());
    }
  } else {
    names.add(host.toLowerCase().replace(/^\[|\]$/g, ''));
  }
  return [...names];
}

function allowedHosts(env: NodeJS.ProcessEnv, host: string): string[] | '*' {
  const extra = list(env, 'ALLOWED_HOSTS');
  if (extra.includes('*')) return '*';
  for (const entry of extra) {
    const bare = entry.replace(/^\[(.*)\]$/, '$1');
    if (!HOSTNAME.test(bare) && !(bare.includes(':') && IPV6.test(bare))) {
      throw new ConfigError(
        `ALLOWED_HOSTS must be comma-separated hostnames or IP addresses without a port (or *), got "${entry}"`,
      );
    }
  }
  return [...new Set([...defaultHosts(host), ...extra.map((e) => e.replace(/^\[(.*)\]$/, '$1'))])];
}

function allowedOrigins(env: NodeJS.ProcessEnv): string[] {
  return list(env, 'ALLOWED_ORIGINS').map((entry) => {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {}
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== entry.replace(/\/$/, '')) {
      throw new ConfigError(
        `ALLOWED_ORIGINS must be comma-separated origins like https://admin.example.com (scheme, host, optional port, no path), got "${entry}"`,
      );
    }
    return url.origin;
  });
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
  const host = optional(env, 'HOST') ?? '127.0.0.1';
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host,
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
    allowedHosts: allowedHosts(env, host),
    allowedOrigins: allowedOrigins(env),
    healthTimeoutMs: integer(env, 'HEALTH_TIMEOUT_MS', 1_500, 100, 60_000),
  };
}
