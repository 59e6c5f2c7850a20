import { InvalidArgumentError } from '../errors.js';
import { createLogger } from '../log.js';
import { normalizeTrailingSlashes } from './normalize-trailing-slashes.js';
import type { MiddlewareOptions, ResolvedMiddlewareOptions, WebhooksLike } from './types.js';

export const DEFAULT_PATH = '/api/hosting/webhooks';
export const DEFAULT_TIMEOUT_MS = 9000;
/** The provider's own cap on delivery size. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 25 * 1024 * 1024;

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
  } = options;
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new InvalidArgumentError('createMiddleware(): path must be a string starting with "/"');
  }
  if (typeof timeout !== 'number' || !(timeout >= 0) || !Number.isFinite(timeout)) {
    throw new InvalidArgumentError('createMiddleware(): timeout must be a number of milliseconds');
  }
  if (!Number.isSafeInteger(maxPayloadBytes) || maxPayloadBytes < 1) {
    throw new InvalidArgumentError(
      'createMiddleware(): maxPayloadBytes must be a positive integer',
    );
  }
  return {
    path: normalizeTrailingSlashes(path),
    log: options.log ? createLogger(options.log) : (webhooks.log ?? createLogger()),
    timeout,
    maxPayloadBytes,
  };
}
