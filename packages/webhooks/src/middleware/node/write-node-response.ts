import type { ServerResponse } from 'node:http';
import type { MiddlewareResponse } from '../types.js';

/**
 * Writes a core response with a byte-exact `Content-Length` (bodies may hold non-ASCII text).
 * Does nothing when another layer already sent headers.
 *
 * @example
 * ```ts
 * writeNodeResponse(res, { status: 200, headers: {}, body: 'ok\n' });
 * ```
 */
export function writeNodeResponse(response: ServerResponse, outcome: MiddlewareResponse): void {
  if (response.headersSent || response.writableEnded) return;
  const headers: Record<string, string | number> = {
    ...outcome.headers,
    'content-length': Buffer.byteLength(outcome.body),
  };
  if (outcome.closeConnection) headers.connection = 'close';
  response.writeHead(outcome.status, headers);
  response.end(outcome.body);
}
