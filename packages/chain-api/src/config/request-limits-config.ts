import { type Env, integer } from './env-readers.js';

/** What one API request may cost (docs/limits.md). */
export interface RequestLimits {
  /** REQUEST_TIMEOUT_MS: the request's deadline; past it a 503 and its work is cancelled. */
  timeoutMs: number;
  /** REQUEST_MAX_NODE_READS: past-state node reads (one block's balances each) per request. */
  maxNodeReads: number;
  /** REQUEST_MAX_ROWS_SCANNED: candidate rows a paged scan examines before it stops. */
  maxRowsScanned: number;
  /**
   * KEY_DB_CONCURRENCY: statements of one API key running at once on the read pool while another
   * key has a request in flight (a key alone may use the whole pool).
   */
  keyDbConcurrency: number;
  /** KEY_NODE_CONCURRENCY: past-state node reads of one API key running at once. */
  keyNodeConcurrency: number;
  /**
   * KEY_REQUEST_CONCURRENCY: requests of one API key in progress at once; the key's further
   * requests wait (within their deadline) for one of them to end.
   */
  keyRequestConcurrency: number;
  /** PORTFOLIO_MAX_TOKENS: tokens per chain a portfolio series values (most liquid first). */
  maxPortfolioTokens: number;
  /** DEFI_MAX_CONTRACTS: held contracts and NFT ids per chain a positions request reads. */
  maxDefiContracts: number;
  /** TX_MAX_LOGS: logs shown per transaction in a transactions page. */
  maxLogsPerTransaction: number;
}

export const defaultRequestLimits: RequestLimits = {
  timeoutMs: 10_000,
  maxNodeReads: 32,
  maxRowsScanned: 20_000,
  keyDbConcurrency: 2,
  keyNodeConcurrency: 2,
  keyRequestConcurrency: 8,
  maxPortfolioTokens: 100,
  maxDefiContracts: 200,
  maxLogsPerTransaction: 1_000,
};

/**
 * The request limits from the environment (each unset variable: its default).
 *
 * @example
 * requestLimitsFromEnv({ REQUEST_TIMEOUT_MS: '5000' }).timeoutMs // 5000
 */
export function requestLimitsFromEnv(env: Env): RequestLimits {
  const d = defaultRequestLimits;
  return {
    timeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', d.timeoutMs, 100, 600_000),
    maxNodeReads: integer(env, 'REQUEST_MAX_NODE_READS', d.maxNodeReads, 1, 100_000),
    maxRowsScanned: integer(env, 'REQUEST_MAX_ROWS_SCANNED', d.maxRowsScanned, 100, 10_000_000),
    keyDbConcurrency: integer(env, 'KEY_DB_CONCURRENCY', d.keyDbConcurrency, 1, 1_000),
    keyNodeConcurrency: integer(env, 'KEY_NODE_CONCURRENCY', d.keyNodeConcurrency, 1, 1_000),
    keyRequestConcurrency: integer(
      env,
      'KEY_REQUEST_CONCURRENCY',
      d.keyRequestConcurrency,
      1,
      100_000,
    ),
    maxPortfolioTokens: integer(env, 'PORTFOLIO_MAX_TOKENS', d.maxPortfolioTokens, 1, 100_000),
    maxDefiContracts: integer(env, 'DEFI_MAX_CONTRACTS', d.maxDefiContracts, 1, 100_000),
    maxLogsPerTransaction: integer(env, 'TX_MAX_LOGS', d.maxLogsPerTransaction, 1, 1_000_000),
  };
}
