import { describe, expect, it } from 'vitest';
import { loadConfig } from './index.js';

describe('webhook dispatcher settings', () => {
  it('defaults the poll interval, concurrency and per-host connections', () => {
    expect(loadConfig({}).webhooks).toMatchObject({
      pollIntervalMs: 100,
      concurrency: 64,
      maxConnectionsPerHost: 16,
    });
  });

  it('refuses a bad poll interval, concurrency or per-host connection cap', () => {
    expect(() => loadConfig({ WEBHOOK_POLL_MS: '0' })).toThrow(/WEBHOOK_POLL_MS/);
    expect(() => loadConfig({ WEBHOOK_CONCURRENCY: 'many' })).toThrow(/WEBHOOK_CONCURRENCY/);
    expect(() => loadConfig({ WEBHOOK_MAX_CONNECTIONS_PER_HOST: '0' })).toThrow(
      /WEBHOOK_MAX_CONNECTIONS_PER_HOST/,
    );
  });
});
