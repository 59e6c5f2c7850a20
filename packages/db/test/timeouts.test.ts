import { describe, expect, it } from 'vitest';
import { resolveTimeouts } from '../src/postgres-database.js';

describe('resolveTimeouts', () => {
  it('takes the values the caller passes, 5 s each by default, and never the environment', () => {
    const saved = { ...process.env };
    process.env.DB_STATEMENT_TIMEOUT_MS = '1';
    process.env.DB_CONNECT_TIMEOUT_MS = 'not a number';
    try {
      expect(resolveTimeouts({})).toEqual({ statementMs: 5_000, connectMs: 5_000 });
      expect(resolveTimeouts({ statementTimeoutMs: 0, connectTimeoutMs: 2_000 })).toEqual({
        statementMs: 0,
        connectMs: 2_000,
      });
    } finally {
      process.env = saved;
    }
  });
});
