import { InvalidArgumentError } from '../errors.js';
import { createLogger } from '../log.js';
import { normalizeTrailingSlashes } from './normalize-trailing-slashes.js';
import type { MiddlewareOptions, ResolvedMiddlewareOptions, WebhooksLike } from './types.js';

export const DEFAULT_PATH = '/api/hosting/webhooks';
export const DEFAULT_TIMEOUT_MS = 9000;
/** The provider's own cap on delivery size. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 25 * 1024 * 1024;
/** How long a body may take to arrive (408 after). */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;
/** Requests one middleware handles at once (429 beyond). */
export const DEFAULT_MAX_CONCURRENT_REQUESTS = 1024;
/** Body bytes one middleware buffers at once (503 beyond): four deliveries of the largest size. */
export const DEFAULT_MAX_CONCURRENT_BODY_BYTES = 100 * 1024 * 1024;

const isPositiveInteger = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 1;

/**
 * Checks the middleware options and fills in defaults.
 *
 * @example
 * ```ts
 * resolveMiddlewareOptions(webhooks, { path: '/hooks/' }).path; // '/hooks'
 * ```
 */
export function resolveMiddlewareOptions(
  webhooks: WebhooksLike,
  options: MiddlewareOptions = {},
): ResolvedMiddlewareOptions {
  if (webhooks === null || typeof webhooks?.verifyAndReceive !== 'function') {
    throw new InvalidArgumentError('createMiddleware(): a Webhooks instance is required');
  }
  const {
    path = DEFAULT_PATH,
    timeout = DEFAULT_TIMEOUT_MS,
    maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES,
    bodyTimeout = DEFAULT_BODY_TIMEOUT_MS,
    maxConcurrentRequests = DEFAULT_MAX_CONCURRENT_REQUESTS,
  } = options;
  // '' means the root, as in `@octokit/webhooks`.
  if (typeof path !== 'string' || (path !== '' && !path.startsWith('/'))) {
    throw new InvalidArgumentError('createMiddleware(): path must be a string starting with "/"');
  }
  if (typeof timeout !== 'number' || !(timeout >= 0) || !Number.isFinite(timeout)) {
    throw new InvalidArgumentError('createMiddleware(): timeout must be a number of milliseconds');
  }
  if (typeof bodyTimeout !== 'number' || !(bodyTimeout > 0) || !Number.isFinite(bodyTimeout)) {
    throw new InvalidArgumentError(
      'createMiddleware(): bodyTimeout must be a positive number of milliseconds',
    );
  }
  if (!isPositiveInteger(maxPayloadBytes)) {
    throw new InvalidArgumentError(
      'createMiddleware(): maxPayloadBytes must be a positive integer',
    );
  }
  if (!isPositiveInteger(maxConcurrentRequests)) {
    throw new InvalidArgumentError(
      'createMiddleware(): maxConcurrentRequests must be a positive integer',
    );
  }
  const maxConcurrentBodyBytes =
    options.maxConcurrentBodyBytes ?? Math.max(DEFAULT_MAX_CONCURRENT_BODY_BYTES, maxPayloadBytes);
  if (!isPositiveInteger(maxConcurrentBodyBytes) || maxConcurrentBodyBytes < maxPayloadBytes) {
    throw new InvalidArgumentError(
      'createMiddleware(): maxConcurrentBodyBytes must be an integer of at least maxPayloadBytes',
    );
  }
  return {
    path: path === '' ? '/' : normalizeTrailingSlashes(path),
    log: options.log ? createLogger(options.log) : (webhooks.log ?? createLogger()),
    timeout,
    maxPayloadBytes,
    bodyTimeout,
    maxConcurrentRequests,
    maxConcurrentBodyBytes,
  };
}
