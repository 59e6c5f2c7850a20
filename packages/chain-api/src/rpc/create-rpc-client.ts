import type { Logger } from 'pino';
import { AdaptiveLimiter } from './adaptive-limiter.js';
import { backoffDelay, sleep } from './backoff.js';
import { BatchSizer } from './batch-sizer.js';
import { withCallGas } from './call-gas.js';
import { createNodeTransport, type NodeTransport } from './node-transport.js';
import {
  RpcError,
  RpcHttpError,
  RpcMalformedResponseError,
  RpcResponseError,
  RpcTimeoutError,
  RpcTooLargeError,
  RpcTransportError,
  redactUrl,
} from './rpc-errors.js';

/** One JSON-RPC call. */
export interface RpcCall {
  method: string;
  params: unknown[];
}

/** Checks a result before it is accepted; a rejected result is retried like a malformed answer. */
export type ResultValidator = (result: unknown, call: RpcCall) => boolean;

export interface RpcClientOptions {
  /** http(s):// or ws(s):// node URL. */
  url: string;
  log?: Logger;
  /** Per HTTP request / ws call, ms (default 20 s). */
  timeoutMs?: number;
  /**
   * Most calls per HTTP batch (default 50). Per method, a batch that times out or is too large
   * (413, an answer over `maxResponseBytes`, a dropped connection) is split in halves, and the
   * size follows the node's answer times (target: a quarter of the timeout, at least 2 s); one
   * call alone too large fails with `RPC_TOO_LARGE`.
   */
  batchSize?: number;
  /** Upper bound of concurrent HTTP requests (default 8); adapts down on throttling. */
  maxConcurrency?: number;
  /** Attempts for transient failures (timeouts, 429, 5xx, drops). Default: unlimited. */
  maxAttempts?: number;
  /** Attempts for answers that fail validation (e.g. `null` for a block). Default 8. */
  maxInvalidAttempts?: number;
  /** Base backoff delay in ms (default 200). */
  backoffBaseMs?: number;
  /** Aborts pending retries (on shutdown). */
  signal?: AbortSignal;
  /**
   * Largest answer of one HTTP request (default 512 MiB). Reads whose answer the caller does not
   * control (a contract's `tokenURI`) use a smaller one.
   */
  maxResponseBytes?: number;
  /**
   * Give every `eth_call` without a `gas` the per-call cap (`withCallGas`; default true). The NFT
   * worker's client turns it off: its reads are background work bounded by its own concurrency,
   * answer size and timeout, and on-chain documents may need the node's whole call gas.
   */
  capCallGas?: boolean;
  /** The node's shared transport (from the node client registry); default: a transport of its own. */
  transport?: NodeTransport;
}

export interface RpcHealth {
  /** false after 3 consecutive transient failures with no success since. */
  ok: boolean;
  consecutiveFailures: number;
  lastError: string | undefined;
  lastSuccessAt: number | undefined;
}

export interface RpcClient {
  /** Redacted URL, safe for logs. */
  readonly label: string;
  /**
   * One call, retried per the client's policy (`maxAttempts` lowers the client's limit of
   * attempts for transient failures, e.g. for a probe that must not wait forever).
   */
  request<T>(method: string, params: unknown[], opts?: CallOptions): Promise<T>;
  /** Many calls in JSON-RPC batches (chunked, concurrent, retried per item); results in call order. */
  batch<T>(calls: readonly RpcCall[], opts?: CallOptions): Promise<T[]>;
  health(): RpcHealth;
  close(): Promise<void>;
}

/** Per-call options. */
export interface CallOptions {
  validate?: ResultValidator;
  /** At most this many attempts for transient failures (lowers the client's own limit). */
  maxAttempts?: number;
  /** Aborts this call: its HTTP request, retries and backoff (an API request's deadline). */
  signal?: AbortSignal | undefined;
}

interface RawResponse {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

type Sender = (
  body: { id: number; method: string; params: unknown[] }[],
  signal: AbortSignal | undefined,
) => Promise<unknown[]>;

/**
 * A JSON-RPC client for indexing: explicit batches, per-item retries with exponential backoff and
 * jitter (honouring `Retry-After`), adaptive concurrency, validation of results, and no URL in
 * any error or log line.
 *
 * @example
 * const rpc = createRpcClient({ url: 'http://127.0.0.1:8545', log });
 * const [a, b] = await rpc.batch([{ method: 'eth_getBlockByNumber', params: ['0x1', false] }, { method: 'eth_chainId', params: [] }]);
 */
export function createRpcClient(options: RpcClientOptions): RpcClient {
  const label = redactUrl(options.url);
  const timeout = options.timeoutMs ?? 20_000;
  const maxAttempts = options.maxAttempts ?? Number.POSITIVE_INFINITY;
  const maxInvalid = options.maxInvalidAttempts ?? 8;
  const base = options.backoffBaseMs ?? 200;
  const limiter = new AdaptiveLimiter(1, options.maxConcurrency ?? 8);
  // Target answer time: a quarter of the timeout, at least 2 s (a short timeout acts alone).
  const sizer = new BatchSizer(Math.max(1, options.batchSize ?? 50), Math.max(2_000, timeout / 4));
  let nextId = 1;
  const health: RpcHealth = {
    ok: true,
    consecutiveFailures: 0,
    lastError: undefined,
    lastSuccessAt: undefined,
  };
  const transport = options.transport ?? createNodeTransport(options.url);
  const capGas =
    options.capCallGas === false ? (_m: string, params: unknown[]) => params : withCallGas;
  const sendOpts =
    options.maxResponseBytes === undefined ? {} : { maxResponseBytes: options.maxResponseBytes };
  const send: Sender = (body, signal) =>
    transport.send(body, timeout, signal ? { ...sendOpts, signal } : sendOpts);

  function noteFailure(error: RpcError): void {
    health.consecutiveFailures++;
    health.lastError = error.message;
    if (health.consecutiveFailures >= 3) health.ok = false;
  }
  function noteSuccess(): void {
    health.consecutiveFailures = 0;
    health.ok = true;
    health.lastSuccessAt = Date.now();
  }

  /** Sends `calls` (one HTTP batch), retrying the items that fail transiently until all resolve. */
  async function sendChunk(
    calls: readonly RpcCall[],
    validate?: ResultValidator,
    attemptsLimit = maxAttempts,
    callSignal?: AbortSignal,
  ): Promise<unknown[]> {
    const signal =
      callSignal && options.signal
        ? AbortSignal.any([callSignal, options.signal])
        : (callSignal ?? options.signal);
    const results = new Array<unknown>(calls.length);
    let pending = calls.map((_, i) => i);
    let attempt = 0;
    let invalid = 0;
    while (pending.length > 0) {
      signal?.throwIfAborted();
      const ids = new Map<number, number>();
      const body = pending.map((i) => {
        const id = nextId++;
        ids.set(id, i);
        const call = calls[i] as RpcCall;
        return { id, method: call.method, params: capGas(call.method, call.params) };
      });
      const method = body.length === 1 ? (body[0]?.method ?? 'batch') : 'batch';
      const sizeKey = body[0]?.method ?? 'batch';
      let failure: RpcError | undefined;
      let retryAfterMs = 0;
      try {
        const responses = await limiter.run(async () => {
          signal?.throwIfAborted();
          const t0 = performance.now();
          const answer = await send(body, signal);
          sizer.answered(sizeKey, body.length, performance.now() - t0);
          return answer;
        });
        const byIndex = new Map<number, RawResponse>();
        for (const r of responses) {
          if (typeof r !== 'object' || r === null) continue;
          const idx = ids.get(Number((r as RawResponse).id));
          if (idx !== undefined) byIndex.set(idx, r as RawResponse);
        }
        if (byIndex.size === 0 && pending.length > 1) {
          // Not one answer for the batch (a node answers a body over its limit with one error
          // object): smaller batches, not the same one again.
          const err = new RpcMalformedResponseError(sizeKey, 'no answer for any call of the batch');
          sizer.failed(sizeKey, pending.length);
          noteFailure(err);
          limiter.failure();
          await splitInHalves(calls, pending, results, validate, attemptsLimit, callSignal);
          break;
        }
        const still: number[] = [];
        for (const i of pending) {
          const call = calls[i] as RpcCall;
          const r = byIndex.get(i);
          if (!r) {
            still.push(i);
            failure ??= new RpcMalformedResponseError(call.method, 'missing response in batch');
            continue;
          }
          if (r.error) {
            const code = typeof r.error.code === 'number' ? r.error.code : -32603;
            const message = typeof r.error.message === 'string' ? r.error.message : 'unknown error';
            const err = new RpcResponseError(call.method, code, message, r.error.data);
            if (!err.retryable) throw err;
            still.push(i);
            failure ??= err;
            continue;
          }
          if (!('result' in r)) {
            still.push(i);
            failure ??= new RpcMalformedResponseError(call.method, 'neither result nor error');
            continue;
          }
          if (validate && !validate(r.result, call)) {
            still.push(i);
            invalid++;
            if (invalid >= maxInvalid * Math.max(1, pending.length)) {
              throw new RpcMalformedResponseError(
                call.method,
                'result failed validation repeatedly',
                false,
              );
            }
            failure ??= new RpcMalformedResponseError(call.method, 'result failed validation');
            continue;
          }
          results[i] = r.result;
        }
        pending = still;
      } catch (error) {
        // The caller's own deadline: its reason, not a node failure to retry.
        if (callSignal?.aborted) throw callSignal.reason;
        const err = toRpcError(error, method);
        // One call alone too large can only fail again: final for that call.
        if (err instanceof RpcHttpError && err.status === 413 && pending.length === 1) {
          throw new RpcTooLargeError(method);
        }
        if (!err.retryable) throw err;
        const tooBig = tooLarge(err);
        if (tooBig) sizer.failed(sizeKey, pending.length);
        if (err instanceof RpcHttpError && err.retryAfter !== undefined) {
          retryAfterMs = Math.min(60_000, err.retryAfter * 1000);
        }
        failure = err;
        if (tooBig && pending.length > 1) {
          // Split rather than send the whole batch again: each half is retried on its own.
          noteFailure(err);
          limiter.failure();
          await splitInHalves(calls, pending, results, validate, attemptsLimit, callSignal);
          pending = [];
        }
      }
      if (pending.length === 0) break;
      if (failure) {
        noteFailure(failure);
        limiter.failure();
      }
      attempt++;
      if (attempt >= attemptsLimit) throw failure ?? new RpcTransportError(method, 'gave up');
      const delay = Math.max(retryAfterMs, backoffDelay(attempt - 1, base));
      options.log?.warn(
        {
          rpc: label,
          method,
          attempt,
          pending: pending.length,
          delayMs: delay,
          err: failure?.message,
        },
        'rpc retry',
      );
      await sleep(delay, signal);
    }
    noteSuccess();
    limiter.success();
    return results;
  }

  /** Sends the calls `pending` names as two batches, filling `results`. */
  async function splitInHalves(
    calls: readonly RpcCall[],
    pending: readonly number[],
    results: unknown[],
    validate: ResultValidator | undefined,
    attemptsLimit: number,
    callSignal: AbortSignal | undefined,
  ): Promise<void> {
    options.log?.warn(
      { rpc: label, method: calls[pending[0] as number]?.method, calls: pending.length },
      'rpc batch timed out or too large: splitting it',
    );
    const half = Math.ceil(pending.length / 2);
    const parts = [pending.slice(0, half), pending.slice(half)];
    const answers = await Promise.all(
      parts.map((idx) =>
        sendChunk(
          idx.map((i) => calls[i] as RpcCall),
          validate,
          attemptsLimit,
          callSignal,
        ),
      ),
    );
    parts.forEach((idx, p) => {
      idx.forEach((i, k) => {
        results[i] = answers[p]?.[k];
      });
    });
  }

  return {
    label,
    async request<T>(method: string, params: unknown[], opts?: CallOptions) {
      const limit = Math.min(maxAttempts, opts?.maxAttempts ?? maxAttempts);
      const [result] = await sendChunk([{ method, params }], opts?.validate, limit, opts?.signal);
      return result as T;
    },
    async batch<T>(calls: readonly RpcCall[], opts?: CallOptions) {
      if (calls.length === 0) return [];
      const chunks: RpcCall[][] = [];
      const size = sizer.size(calls[0]?.method ?? 'batch');
      for (let i = 0; i < calls.length; i += size) chunks.push(calls.slice(i, i + size));
      const parts = await Promise.all(
        chunks.map((c) => sendChunk(c, opts?.validate, maxAttempts, opts?.signal)),
      );
      return parts.flat() as T[];
    },
    health: () => ({ ...health }),
    async close() {
      // A shared transport belongs to its registry, which closes it.
      if (!options.transport) await transport.close();
    },
  };
}

/**
 * A failure a smaller batch may not hit: a timeout, 413, or the node dropping the connection
 * while the request was sent (EPIPE / ECONNRESET: anvil and proxies close on a body over their
 * limit). Refused connections are not: the node is down, not choking.
 */
function tooLarge(err: RpcError): boolean {
  if (err instanceof RpcTimeoutError) return true;
  if (err instanceof RpcHttpError) return err.status === 413;
  if (err instanceof RpcMalformedResponseError) return err.message.includes('not an array');
  return err instanceof RpcTransportError && /\((EPIPE|ECONNRESET)\)/.test(err.message);
}

/** Maps viem's transport errors to ours without carrying their messages (they contain the URL). */
function toRpcError(error: unknown, method: string): RpcError {
  if (error instanceof RpcError) return error;
  if (typeof error !== 'object' || error === null)
    return new RpcTransportError(method, String(error));
  const e = error as {
    name?: string;
    status?: number;
    headers?: Headers;
    cause?: unknown;
    message?: string;
  };
  if (e.name === 'AbortError')
    return new RpcError('aborted', { code: 'RPC_ABORTED', method, retryable: false });
  if (e.name === 'TimeoutError') return new RpcTimeoutError(method);
  if (e.name === 'ResponseBodyTooLargeError') return new RpcHttpError(method, 413);
  if (typeof e.status === 'number') {
    const ra = e.headers?.get?.('retry-after');
    const seconds = ra !== null && ra !== undefined && /^\d+$/.test(ra) ? Number(ra) : undefined;
    return new RpcHttpError(method, e.status, seconds);
  }
  const cause = e.cause as { name?: string; code?: string; message?: string } | undefined;
  if (cause?.name === 'SyntaxError' || e.name === 'SyntaxError') {
    return new RpcMalformedResponseError(method, 'invalid JSON');
  }
  if (e.message?.startsWith('Expected ') && e.message.includes('responses to batch')) {
    return new RpcMalformedResponseError(method, 'short batch answer');
  }
  const code = cause?.code ?? (cause as { cause?: { code?: string } } | undefined)?.cause?.code;
  return new RpcTransportError(method, code ? `connection failed (${code})` : 'connection failed');
}
