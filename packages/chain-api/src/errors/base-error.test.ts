import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/errors.js';
import { ChainConfigError } from '../chains/index.js';
import { CheckpointConflictError } from '../db/write-batch.js';
import { ChainStateUnavailableError } from '../defi/read-positions.js';
import { AnvilNotFoundError, ScenarioError } from '../devnet/errors.js';
import { TraceUnavailableError } from '../ingest/block-traces.js';
import { InconsistentRangeError } from '../ingest/fetch-range.js';
import { ChainReplacedError } from '../ingest/genesis-check.js';
import { LeadershipLostError } from '../ingest/leader-lock.js';
import { classifyStepFailure } from '../ingest/step-failure.js';
import { SafeFetchError } from '../nft/errors.js';
import { PricingConfigError } from '../pricing/thresholds.js';
import { StaleCursorError } from '../pricing/worker/price-chain-step.js';
import { ReorgTooDeepError } from '../reorg/find-common-ancestor.js';
import { MalformedTraceError } from '../rpc/parity-trace.js';
import { CapabilityUnknownError } from '../rpc/probe-capabilities.js';
import {
  RpcError,
  RpcHttpError,
  RpcMalformedResponseError,
  RpcResponseError,
  RpcTransportError,
} from '../rpc/rpc-errors.js';
import { BackfillSupersededError } from '../wallets/backfill-wallet.js';
import { PoolReadError } from '../wallets/pool-state-read.js';
import { BaseError, ConfigError, errorCodes, InternalError, isRetryable } from './index.js';

describe('BaseError', () => {
  it('takes retryable from the catalogue unless the instance says otherwise', () => {
    expect(new BaseError('x', { code: 'RPC_TRANSPORT' }).retryable).toBe(true);
    expect(new BaseError('x', { code: 'CHAIN_REPLACED' }).retryable).toBe(false);
    expect(new BaseError('x', { code: 'RPC_TRANSPORT', retryable: false }).retryable).toBe(false);
  });

  it('keeps the short message, details and cause apart from the message', () => {
    const cause = new Error('root');
    const error = new BaseError('short', { code: 'INTERNAL', details: 'more', cause });
    expect(error.message).toBe('short');
    expect(error.shortMessage).toBe('short');
    expect(error.details).toBe('more');
    expect(error.cause).toBe(cause);
    expect(isRetryable(error)).toBe(false);
    expect(isRetryable(new Error('plain'))).toBeUndefined();
  });
});

// Every error class of chain-api: its name, message and catalogue code as callers see them.
const cases: [Error, string, string, string][] = [
  [new ReorgTooDeepError('too deep'), 'ReorgTooDeepError', 'too deep', 'REORG_TOO_DEEP'],
  [new PoolReadError('no call'), 'PoolReadError', 'no call', 'POOL_READ_FAILED'],
  [new BackfillSupersededError('void'), 'BackfillSupersededError', 'void', 'BACKFILL_SUPERSEDED'],
  [new CapabilityUnknownError('?'), 'CapabilityUnknownError', '?', 'CAPABILITY_UNKNOWN'],
  [
    new RpcError('aborted', { code: 'RPC_ABORTED', method: 'm', retryable: false }),
    'RpcError',
    'aborted',
    'RPC_ABORTED',
  ],
  [
    new RpcTransportError('eth_call', 'timed out'),
    'RpcTransportError',
    'RPC transport failure on eth_call: timed out',
    'RPC_TRANSPORT',
  ],
  [new RpcHttpError('eth_call', 503), 'RpcHttpError', 'RPC HTTP 503 on eth_call', 'RPC_HTTP'],
  [
    new RpcMalformedResponseError('batch', 'not an array'),
    'RpcMalformedResponseError',
    'Malformed RPC response to batch: not an array',
    'RPC_MALFORMED_RESPONSE',
  ],
  [
    new RpcResponseError('eth_call', 3, 'execution reverted'),
    'RpcResponseError',
    'RPC error 3 on eth_call: execution reverted',
    'RPC_RESPONSE',
  ],
  [
    new MalformedTraceError('no root trace'),
    'MalformedTraceError',
    'no root trace',
    'TRACE_MALFORMED',
  ],
  [
    new SafeFetchError('TIMEOUT', 'fetch timed out', 'after 5 s'),
    'SafeFetchError',
    'fetch timed out: after 5 s',
    'TIMEOUT',
  ],
  [new ApiError('NOT_FOUND'), 'ApiError', 'Not found', 'NOT_FOUND'],
  [
    new ConfigError('PORT', 'PORT must be an integer'),
    'ConfigError',
    'PORT must be an integer',
    'CONFIG_INVALID',
  ],
  [new InconsistentRangeError('moved'), 'InconsistentRangeError', 'moved', 'RANGE_INCONSISTENT'],
  [new TraceUnavailableError('no trace'), 'TraceUnavailableError', 'no trace', 'TRACE_UNAVAILABLE'],
  [new LeadershipLostError('lost'), 'LeadershipLostError', 'lost', 'LEADERSHIP_LOST'],
  [
    new ChainStateUnavailableError('none'),
    'ChainStateUnavailableError',
    'none',
    'CHAIN_STATE_UNAVAILABLE',
  ],
  [new CheckpointConflictError('moved'), 'CheckpointConflictError', 'moved', 'CHECKPOINT_CONFLICT'],
  [new StaleCursorError('moved'), 'StaleCursorError', 'moved', 'STALE_CURSOR'],
  [
    new ScenarioError('step failed', 'reverted'),
    'ScenarioError',
    'step failed\nreverted',
    'SCENARIO_FAILED',
  ],
  [
    new AnvilNotFoundError('tried PATH'),
    'AnvilNotFoundError',
    expect.stringContaining('anvil binary not found') as unknown as string,
    'ANVIL_NOT_FOUND',
  ],
  [new InternalError('impossible'), 'InternalError', 'impossible', 'INVARIANT_BROKEN'],
];

describe('chain-api errors', () => {
  it.each(cases)(
    '%s keeps its name and message and carries a catalogue code',
    (error, name, message, code) => {
      expect(error).toBeInstanceOf(BaseError);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe(name);
      expect(error.message).toEqual(message);
      expect((error as BaseError).code).toBe(code);
      expect(Object.keys(errorCodes)).toContain(code);
    },
  );

  it('has one config error under the old names', () => {
    expect(ChainConfigError).toBe(ConfigError);
    expect(PricingConfigError).toBe(ConfigError);
  });

  it('keeps the JSON-RPC code of a node error apart from the catalogue code', () => {
    const error = new RpcResponseError('eth_call', -32601, 'method not found');
    expect(error.rpcCode).toBe(-32601);
    expect(error.code).toBe('RPC_RESPONSE');
    expect(error.retryable).toBe(false);
    expect(new RpcResponseError('eth_call', -32005, 'limit exceeded').retryable).toBe(true);
    expect(new RpcHttpError('eth_call', 429).retryable).toBe(true);
    expect(new RpcHttpError('eth_call', 400).retryable).toBe(false);
  });
});

describe('classifyStepFailure', () => {
  it('halts on a replaced chain, stands by on a lost lock, retries the rest', () => {
    const replaced = new ChainReplacedError(1, 'mainnet', 'genesis differs');
    expect(classifyStepFailure(replaced)).toEqual({ action: 'halt', error: replaced });
    expect(classifyStepFailure(new LeadershipLostError('lost')).action).toBe('standby');
    expect(classifyStepFailure(new RpcTransportError('eth_call', 'timed out'))).toEqual({
      action: 'retry',
      retryable: true,
      code: 'RPC_TRANSPORT',
    });
    expect(classifyStepFailure(new ReorgTooDeepError('deep'))).toEqual({
      action: 'retry',
      retryable: false,
      code: 'REORG_TOO_DEEP',
    });
    expect(classifyStepFailure(new Error('plain'))).toEqual({
      action: 'retry',
      retryable: true,
      code: undefined,
    });
  });
});
