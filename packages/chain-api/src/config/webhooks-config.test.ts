import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS, loadConfig } from './index.js';

describe('WEBHOOK_ALLOW_HOSTS', () => {
  it('defaults to none and normalizes host, host:port and IPv6 entries', () => {
    expect(loadConfig({}).webhooks.allowHosts).toEqual([]);
    const config = loadConfig({
      WEBHOOK_ALLOW_HOSTS: ' LocalHost , 127.0.0.1:8080,,::1, [fd00::1]:9000,hooks.internal.',
    });
    expect(config.webhooks.allowHosts).toEqual([
      'localhost',
      '127.0.0.1:8080',
      '[::1]',
      '[fd00::1]:9000',
      'hooks.internal.',
    ]);
  });

  it.each([
    'http://127.0.0.1',
    '127.0.0.1:0',
    '127.0.0.1:70000',
    'host:80:90',
    '[not-ipv6]',
    'bad host',
    '-dash.example',
  ])('rejects %j with one error naming the variable', (entry) => {
    const load = () => loadConfig({ WEBHOOK_ALLOW_HOSTS: `localhost,${entry}` });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/^WEBHOOK_ALLOW_HOSTS entries must be host or host:port/);
  });
});

describe('WEBHOOK_RETRY_SCHEDULE_MS', () => {
  it('defaults to five retries within 24 hours', () => {
    const schedule = loadConfig({}).webhooks.retryScheduleMs;
    expect(schedule).toEqual([...DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS]);
    expect(schedule).toHaveLength(5);
    expect(schedule.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(86_400_000);
  });

  it('takes comma-separated delays', () => {
    const config = loadConfig({ WEBHOOK_RETRY_SCHEDULE_MS: '1000, 2000,4000,8000,16000' });
    expect(config.webhooks.retryScheduleMs).toEqual([1000, 2000, 4000, 8000, 16000]);
  });

  it.each(['0', '-5', '1000,,2000', '1.5', 'soon', '700000000', '1000,x'])(
    'rejects %j naming the variable',
    (value) => {
      const load = () => loadConfig({ WEBHOOK_RETRY_SCHEDULE_MS: value });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(/^WEBHOOK_RETRY_SCHEDULE_MS must be comma-separated delays/);
    },
  );

  it('rejects more than 20 delays', () => {
    const value = Array.from({ length: 21 }, () => '10').join(',');
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE_MS: value })).toThrow(
      /WEBHOOK_RETRY_SCHEDULE_MS holds at most 20 delays, got 21/,
    );
  });
});
