import { defaultRequestLimits, type RequestLimits } from '../../config/request-limits-config.js';
import { ApiError } from '../errors.js';
import type { KeyedLimiter } from './keyed-limiter.js';

export { defaultRequestLimits, type RequestLimits };

/**
 * The running request as the layers below the routes see it, passed to them explicitly (in the
 * request's `ApiContext`): an AsyncLocalStorage would turn on Node's promise hooks for every
 * promise of the process, a quarter of a cached answer's time on Node 20.
 */
export interface RequestScope {
  /** Aborts at the deadline or when the client goes away. */
  readonly signal: AbortSignal;
  readonly limits: RequestLimits;
  /** Who the work is charged to: the API key's id once authenticated, else the client address. */
  key(): string;
  /** Per-key slots shared by every request of this server. */
  readonly dbSlots: KeyedLimiter;
  readonly nodeSlots: KeyedLimiter;
  /** Requests in progress per key (KEY_REQUEST_CONCURRENCY), taken after authentication. */
  readonly requestSlots: KeyedLimiter;
  /** Node reads made so far (against `limits.maxNodeReads`). */
  nodeReads: number;
}

/** The limits of `scope`'s request, else the defaults (work done outside a request). */
export function limitsOf(scope: RequestScope | undefined): RequestLimits {
  return scope?.limits ?? defaultRequestLimits;
}

/**
 * The 503 of a request past its deadline (always a JSON `{error}` body, like the gateway's).
 *
 * @example
 * throw requestTimedOut(10_000);
 */
export function requestTimedOut(timeoutMs: number): ApiError {
  const seconds = timeoutMs >= 1000 ? `${Math.round(timeoutMs / 100) / 10} s` : `${timeoutMs} ms`;
  return new ApiError(
    'REQUEST_TIMEOUT',
    `Request timed out: it took longer than ${seconds} and was cancelled. Retry later, or ask for less (a smaller limit, fewer days or chains).`,
    { 'retry-after': '5' },
  );
}

/** Why a request whose client went away was cancelled. */
export function clientClosed(): ApiError {
  return new ApiError('CLIENT_CLOSED');
}

/** Whether `error` is (or was caused by) a request's deadline. */
export function isRequestTimeout(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'REQUEST_TIMEOUT';
}

/**
 * Rejects as soon as `signal` aborts, else settles like `work`: for work that
 * cannot itself be cancelled (a PGlite statement), so the request still answers at its deadline.
 */
export function raceScope<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
