import type { MiddlewareResponse } from './types.js';

/**
 * A JSON `{ error }` response.
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
    headers: { 'content-type': 'application/json; charset=utf-8', ...extraHeaders },
    body: JSON.stringify({ error }),
  };
}
