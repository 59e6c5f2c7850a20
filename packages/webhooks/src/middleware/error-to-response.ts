import { ACCEPT_JSON, jsonError } from './json-response.js';
import type { MiddlewareResponse } from './types.js';

/** The error a failure is answered for: the first of an `AggregateError`, else itself. */
export function firstError(error: unknown): unknown {
  return error instanceof AggregateError && error.errors.length > 0
    ? (error.errors[0] as unknown)
    : error;
}

/**
 * Maps a failure to a response: the first error's own `status` when it is an HTTP error status
 * (400–599, e.g. a 400 for a bad signature or a failed API call's status), else 500; body
 * `{ "error": "<name>: <message>" }`. A `retryAfter` (seconds) on the error becomes a
 * `Retry-After` header. Logs nothing: callers decide how (see `create-middleware.ts`).
 *
 * @example
 * ```ts
 * errorToResponse(aggregateError); // { status: 400, body: '{"error":"SignatureVerificationError: …"}' }
 * ```
 */
export function errorToResponse(error: unknown): MiddlewareResponse {
  const first = firstError(error);
  const candidate = (first as { status?: unknown } | null)?.status;
  const status =
    typeof candidate === 'number' &&
    Number.isInteger(candidate) &&
    candidate >= 400 &&
    candidate < 600
      ? candidate
      : 500;
  const message =
    first instanceof Error && first.message
      ? `${first.name}: ${first.message}`
      : 'Error: An Unspecified error occurred';
  const retryAfter = (first as { retryAfter?: unknown } | null)?.retryAfter;
  return typeof retryAfter === 'number'
    ? jsonError(status, message, { ...ACCEPT_JSON, 'retry-after': String(retryAfter) })
    : jsonError(status, message, ACCEPT_JSON);
}

/**
 * What a handler or verification failure is logged as: the `AggregateError` itself (as
 * `@octokit/webhooks` passes it to `log.error`), wrapping anything else in one.
 *
 * @example
 * ```ts
 * log.error(toAggregateError(error));
 * ```
 */
export function toAggregateError(error: unknown): AggregateError {
  if (error instanceof AggregateError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new AggregateError([error], message);
}
