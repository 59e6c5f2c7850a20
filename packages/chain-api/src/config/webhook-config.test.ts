import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/index.js';
import { DEFAULT_RETRY_SCHEDULE_MS, webhookConfigFromEnv } from './webhook-config.js';

describe('webhookConfigFromEnv', () => {
  it('defaults to 5 retries spread over about a day', () => {
    const config = webhookConfigFromEnv({});
    expect(config.retryScheduleMs).toEqual(DEFAULT_RETRY_SCHEDULE_MS);
    expect(config.retryScheduleMs).toHaveLength(5);
    const total = config.retryScheduleMs.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(20 * 3_600_000);
    expect(total).toBeLessThanOrEqual(24 * 3_600_000);
    expect(config.allowHosts).toEqual([]);
  });

  it('reads the schedule and the allowed hosts', () => {
    const config = webhookConfigFromEnv({
      WEBHOOK_RETRY_SCHEDULE_MS: '100, 200,400',
      WEBHOOK_ALLOW_HOSTS: 'Hooks.Internal, 127.0.0.1:9000',
    });
    expect(config.retryScheduleMs).toEqual([100, 200, 400]);
    expect(config.allowHosts).toEqual(['hooks.internal', '127.0.0.1:9000']);
  });

  it.each(['-1', '1.5', 'soon', '99999999999'])(
    'refuses schedule entry %s naming the variable',
    (bad) => {
      expect(() => webhookConfigFromEnv({ WEBHOOK_RETRY_SCHEDULE_MS: `100,${bad}` })).toThrow(
        ConfigError,
      );
      expect(() => webhookConfigFromEnv({ WEBHOOK_RETRY_SCHEDULE_MS: bad })).toThrow(
        /WEBHOOK_RETRY_SCHEDULE_MS/,
      );
    },
  );

  it('refuses a bad poll interval or concurrency', () => {
    expect(() => webhookConfigFromEnv({ WEBHOOK_POLL_MS: '0' })).toThrow(/WEBHOOK_POLL_MS/);
    expect(() => webhookConfigFromEnv({ WEBHOOK_CONCURRENCY: 'many' })).toThrow(
      /WEBHOOK_CONCURRENCY/,
    );
  });
});
