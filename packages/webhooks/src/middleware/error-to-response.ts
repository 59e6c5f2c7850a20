import { WebhooksError } from '../errors.js';
import type { Logger } from '../log.js';
import { jsonError } from './json-response.js';
import type { MiddlewareResponse } from './types.js';

/**
 * Maps a failed delivery to a response: the first error's own `status` when it is an HTTP
 * error status (400–599, e.g. a 400 for a bad signature or a failed API call's status), else
 * 500; body `{ "error": "<name>: <message>" }`. Logs 5xx as errors and 4xx as warnings, with the
 * delivery id and event name, never the signature.
 *
 * @example
 * ```ts
 * errorToResponse(error, log, { id, name });
 * ```
 */
export function errorToResponse(
  error: unknown,
  log: Logger,
  delivery: { id: string | undefined; name: string | undefined },
): MiddlewareResponse {
  const first =
    error instanceof AggregateError && error.errors.length > 0
      ? (error.errors[0] as unknown)
      : error;
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
      : 'Error: An unspecified error occurred';
  const where = `${delivery.name ?? '(no event)'} delivery ${delivery.id ?? '(no id)'}`;
  if (status >= 500) {
    log.error(`${where} failed with ${status}: ${summarize(error)}`);
  } else if (first instanceof WebhooksError) {
    log.warn(`${where} rejected with ${status}: ${message}`);
  } else {
    log.warn(`${where} failed with ${status}: ${summarize(error)}`);
  }
  return jsonError(status, message);
}

function summarize(error: unknown): string {
  if (error instanceof AggregateError) {
    return error.errors
      .map((e: unknown) => (e instanceof Error ? (e.stack ?? e.message) : String(e)))
      .join('\n');
  }
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
