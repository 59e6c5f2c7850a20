import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/index.js';
import { loadConfig } from './load-config.js';
import { defaultRequestLimits, requestLimitsFromEnv } from './request-limits-config.js';

describe('request limits from the environment', () => {
  it('defaults when unset, parsed values when set', () => {
    expect(requestLimitsFromEnv({})).toEqual(defaultRequestLimits);
    expect(defaultRequestLimits.timeoutMs).toBe(10_000);
    const limits = requestLimitsFromEnv({
      REQUEST_TIMEOUT_MS: '2500',
      REQUEST_MAX_NODE_READS: '8',
      REQUEST_MAX_ROWS_SCANNED: '5000',
      KEY_DB_CONCURRENCY: '3',
      KEY_NODE_CONCURRENCY: '1',
      KEY_REQUEST_CONCURRENCY: '6',
      PORTFOLIO_MAX_TOKENS: '20',
      DEFI_MAX_CONTRACTS: '50',
      TX_MAX_LOGS: '100',
    });
    expect(limits).toEqual({
      timeoutMs: 2500,
      maxNodeReads: 8,
      maxRowsScanned: 5000,
      keyDbConcurrency: 3,
      keyNodeConcurrency: 1,
      keyRequestConcurrency: 6,
      maxPortfolioTokens: 20,
      maxDefiContracts: 50,
      maxLogsPerTransaction: 100,
    });
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '2500' }).limits.timeoutMs).toBe(2500);
  });

  it('rejects values out of range or not integers, naming the variable', () => {
    for (const [name, value] of [
      ['REQUEST_TIMEOUT_MS', '0'],
      ['REQUEST_TIMEOUT_MS', '10s'],
      ['KEY_DB_CONCURRENCY', '0'],
      ['KEY_REQUEST_CONCURRENCY', '0'],
      ['TX_MAX_LOGS', '-1'],
    ] as const) {
      expect(() => requestLimitsFromEnv({ [name]: value })).toThrow(ConfigError);
      expect(() => requestLimitsFromEnv({ [name]: value })).toThrow(name);
    }
  });
});
