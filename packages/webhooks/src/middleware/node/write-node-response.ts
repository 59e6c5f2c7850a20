import type { ServerResponse } from 'node:http';
import type { MiddlewareResponse } from '../types.js';

/**
 * Writes a core response with a byte-exact `Content-Length` (bodies may hold non-ASCII text).
 * Headers go to `writeHead` as a flat list, and the body as a string, which Node sends in the
 * same write as the head. Does nothing when another layer already sent headers.
 *
 * @example
 * ```ts
 * writeNodeResponse(res, { status: 200, headers: {}, body: 'ok\n' });
 * ```
 */
export function writeNodeResponse(response: ServerResponse, outcome: MiddlewareResponse): void {
  if (response.headersSent || response.writableEnded) return;
  const headers: string[] = [];
  for (const name in outcome.headers) headers.push(name, outcome.headers[name] as string);
  headers.push('content-length', String(Buffer.byteLength(outcome.body)));
  if (outcome.closeConnection) headers.push('connection', 'close');
  response.writeHead(outcome.status, headers);
  response.end(outcome.body);
}
