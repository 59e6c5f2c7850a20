import type { MiddlewareResponse } from './types.js';

/** The `accept` header the peer adds to answers about a delivery. */
export const ACCEPT_JSON: Readonly<Record<string, string>> = { accept: 'application/json' };

/**
 * A JSON `{ error }` response, with the headers `@octokit/webhooks` sends (`content-type`, and
 * `accept` where it adds one).
 *
 * @example
 * ```ts
 * jsonError(415, 'Unsupported "Content-Type" header value');
 * ```
 */
export function jsonError(
  status: number,
  error: string,
  extraHeaders?: Record<string, string>,
): MiddlewareResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', ...extraHeaders },
    body: JSON.stringify({ error }),
  };
}
