import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('database timeouts', () => {
  it('default to 5 s, take 0 for none, and name a bad variable', () => {
    expect(loadConfig({})).toMatchObject({
      dbStatementTimeoutMs: 5_000,
      dbConnectTimeoutMs: 5_000,
    });
    expect(
      loadConfig({ DB_STATEMENT_TIMEOUT_MS: '0', DB_CONNECT_TIMEOUT_MS: '2000' }),
    ).toMatchObject({ dbStatementTimeoutMs: 0, dbConnectTimeoutMs: 2_000 });
    for (const name of ['DB_STATEMENT_TIMEOUT_MS', 'DB_CONNECT_TIMEOUT_MS']) {
      expect(() => loadConfig({ [name]: '-5' })).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: 'soon' })).toThrow(new RegExp(`^${name} must be`));
    }
  });
});
