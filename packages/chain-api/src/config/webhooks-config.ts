import { isIP } from 'node:net';
import { ConfigError } from '../errors/index.js';
import { type Env, integer, list, text } from './env-readers.js';

/** Webhook subscriptions: who may receive deliveries, when failed ones are retried, how fast. */
export interface WebhooksConfig {
  /**
   * WEBHOOK_ALLOW_HOSTS: `host` or `host:port` entries (lower-case; IPv6 in brackets) exempt from
   * the private-address refusal of delivery URLs, for local development and tests.
   */
  allowHosts: string[];
  /** WEBHOOK_RETRY_SCHEDULE_MS: delay before each retry of a failed delivery, in order. */
  retryScheduleMs: number[];
  /** WEBHOOK_POLL_MS: dispatcher poll interval when nothing was due (a commit also wakes it). */
  pollIntervalMs: number;
  /** WEBHOOK_CONCURRENCY: deliveries in flight at once in one process. */
  concurrency: number;
  /** WEBHOOK_MAX_CONNECTIONS_PER_HOST: connections open at once to one receiver, per process. */
  maxConnectionsPerHost: number;
}

/**
 * Retries after 1 min, 10 min, 1 h, 6 h and 16 h: five retries, the last about 23 h after the
 * first attempt (the peer promises up to 5 retries spread over 24 hours).
 */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS: readonly number[] = [
  60_000, 600_000, 3_600_000, 21_600_000, 57_600_000,
];

const MAX_RETRIES = 20;
const MAX_DELAY_MS = 7 * 86_400_000;
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*\.?$/;

/**
 * One WEBHOOK_ALLOW_HOSTS entry in the form delivery URLs are matched against (`URL.host` or
 * `URL.hostname`): lower-case, a bare IPv6 address put in brackets; undefined when unusable.
 */
function allowHostEntry(raw: string): string | undefined {
  const entry = raw.toLowerCase();
  if (isIP(entry) === 6) return `[${entry}]`;
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/.exec(entry);
  if (bracketed) {
    if (isIP(bracketed[1] as string) !== 6) return undefined;
    return validPort(bracketed[2]) ? entry : undefined;
  }
  const [host = '', port, ...rest] = entry.split(':');
  if (rest.length > 0 || !validPort(port)) return undefined;
  return isIP(host) === 4 || HOST_NAME.test(host) ? entry : undefined;
}

function validPort(port: string | undefined): boolean {
  return (
    port === undefined || (/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)
  );
}

/**
 * Reads WEBHOOK_ALLOW_HOSTS (comma-separated `host` or `host:port`), WEBHOOK_RETRY_SCHEDULE_MS
 * (comma-separated delays in milliseconds, 1 to 20 of them, each 1 ms to 7 days), WEBHOOK_POLL_MS,
 * WEBHOOK_CONCURRENCY and WEBHOOK_MAX_CONNECTIONS_PER_HOST. A bad value throws one `ConfigError`
 * naming the variable and the entry.
 *
 * @example
 * webhooksConfigFromEnv({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1:8080', WEBHOOK_RETRY_SCHEDULE_MS: '1000,2000' });
 * // { allowHosts: ['127.0.0.1:8080'], retryScheduleMs: [1000, 2000], pollIntervalMs: 100, ... }
 */
export function webhooksConfigFromEnv(env: Env): WebhooksConfig {
  const allowHosts = list(env, 'WEBHOOK_ALLOW_HOSTS').map((raw) => {
    const entry = allowHostEntry(raw);
    if (entry === undefined) {
      throw new ConfigError(
        'WEBHOOK_ALLOW_HOSTS',
        `WEBHOOK_ALLOW_HOSTS entries must be host or host:port (IPv6 as [addr] or [addr]:port), got "${raw}"`,
      );
    }
    return entry;
  });
  return {
    allowHosts,
    retryScheduleMs: retrySchedule(env),
    pollIntervalMs: integer(env, 'WEBHOOK_POLL_MS', 100, 10, 60_000),
    concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 64, 1, 4096),
    maxConnectionsPerHost: integer(env, 'WEBHOOK_MAX_CONNECTIONS_PER_HOST', 16, 1, 1024),
  };
}

function retrySchedule(env: Env): number[] {
  const name = 'WEBHOOK_RETRY_SCHEDULE_MS';
  if (text(env, name) === undefined) return [...DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS];
  const raw = (env[name] ?? '').split(',').map((entry) => entry.trim());
  if (raw.length > MAX_RETRIES) {
    throw new ConfigError(name, `${name} holds at most ${MAX_RETRIES} delays, got ${raw.length}`);
  }
  return raw.map((entry) => {
    const value = /^\d{1,10}$/.test(entry) ? Number(entry) : Number.NaN;
    if (!(value >= 1 && value <= MAX_DELAY_MS)) {
      throw new ConfigError(
        name,
        `${name} must be comma-separated delays in milliseconds, each from 1 to ${MAX_DELAY_MS}, got "${entry}"`,
      );
    }
    return value;
  });
}
