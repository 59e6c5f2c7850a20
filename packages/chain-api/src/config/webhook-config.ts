import { ConfigError } from '../errors/index.js';
import { type Env, integer, list } from './env-readers.js';

/** Webhook delivery settings (docs/subscriptions-delivery.md). */
export interface WebhookDeliveryConfig {
  /** Hosts (`host` or `host:port`) a receiver URL may name although they resolve to private addresses. */
  allowHosts: string[];
  /** Wait before each retry, in ms: one entry per retry after the first attempt. */
  retryScheduleMs: number[];
  /** Dispatcher poll interval when nothing was due. */
  pollIntervalMs: number;
  /** Deliveries in flight at once in one process. */
  concurrency: number;
  /** Connections open at once to one receiving host:port, per process. */
  maxConnectionsPerHost: number;
}

/** 5 retries spread over about 24 hours: 1 min, 10 min, 1 h, 6 h, 16 h. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  60_000, 600_000, 3_600_000, 21_600_000, 57_600_000,
];

/**
 * Reads `WEBHOOK_ALLOW_HOSTS` (host[:port],...), `WEBHOOK_RETRY_SCHEDULE_MS` (ms,...),
 * `WEBHOOK_POLL_MS`, `WEBHOOK_CONCURRENCY` and `WEBHOOK_MAX_CONNECTIONS_PER_HOST`. Invalid values throw a `ConfigError` naming the variable.
 *
 * @example
 * webhookConfigFromEnv({ WEBHOOK_RETRY_SCHEDULE_MS: '100,200,400' }).retryScheduleMs; // [100, 200, 400]
 */
export function webhookConfigFromEnv(env: Env): WebhookDeliveryConfig {
  const schedule = list(env, 'WEBHOOK_RETRY_SCHEDULE_MS');
  const retryScheduleMs = schedule.map((raw) => {
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value > 7 * 86_400_000) {
      throw new ConfigError(
        'WEBHOOK_RETRY_SCHEDULE_MS',
        `WEBHOOK_RETRY_SCHEDULE_MS must be comma-separated milliseconds (at most 7 days each), got "${raw}"`,
      );
    }
    return value;
  });
  if (retryScheduleMs.length > 20) {
    throw new ConfigError(
      'WEBHOOK_RETRY_SCHEDULE_MS',
      'WEBHOOK_RETRY_SCHEDULE_MS allows at most 20 retries',
    );
  }
  return {
    allowHosts: list(env, 'WEBHOOK_ALLOW_HOSTS').map((h) => h.toLowerCase()),
    retryScheduleMs: schedule.length > 0 ? retryScheduleMs : [...DEFAULT_RETRY_SCHEDULE_MS],
    pollIntervalMs: integer(env, 'WEBHOOK_POLL_MS', 100, 10, 60_000),
    concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 64, 1, 4096),
    maxConnectionsPerHost: integer(env, 'WEBHOOK_MAX_CONNECTIONS_PER_HOST', 16, 1, 1024),
  };
}
