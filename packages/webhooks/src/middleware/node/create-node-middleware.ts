import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMiddleware } from '../create-middleware.js';
import { getRequestPathname } from '../get-request-pathname.js';
import { resolveMiddlewareOptions } from '../resolve-middleware-options.js';
import type { MiddlewareOptions, RequestAdapter, WebhooksLike } from '../types.js';
import { type NodeRequestWithBody, readNodeBody } from './read-node-body.js';
import { writeNodeResponse } from './write-node-response.js';

/** A `node:http` request listener that is also Express/Connect middleware. */
export type NodeMiddleware = (
  request: IncomingMessage,
  response: ServerResponse,
  next?: (error?: unknown) => void,
) => Promise<boolean>;

const nodeAdapter: RequestAdapter<NodeRequestWithBody> = {
  getUrl: (request) => request.url ?? '',
  getPathname: (request) => getRequestPathname(request.url ?? ''),
  getMethod: (request) => request.method ?? 'GET',
  getHeader: (request, name) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  },
  readBody: readNodeBody,
};

/**
 * Receives deliveries on a Node HTTP server. Resolves `true` when it answered the request and
 * `false` (after calling `next()` when given) when the request is for another path, so it works
 * as a plain request listener and as Express/Connect middleware.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { Webhooks, createNodeMiddleware } from '@sluice/webhooks';
 *
 * const webhooks = new Webhooks({ secret: process.env.WEBHOOK_SECRET! });
 * const middleware = createNodeMiddleware(webhooks, { path: '/api/hosting/webhooks' });
 * createServer(async (req, res) => {
 *   if (await middleware(req, res)) return;
 *   res.writeHead(404).end();
 * }).listen(3000);
 * ```
 */
export function createNodeMiddleware(
  webhooks: WebhooksLike,
  options?: MiddlewareOptions,
): NodeMiddleware {
  const handle = createMiddleware(
    nodeAdapter,
    webhooks,
    resolveMiddlewareOptions(webhooks, options),
  );
  return function sluiceWebhooksMiddleware(request, response, next) {
    return new Promise<boolean>((resolve, reject) => {
      handle(request, (outcome) => {
        try {
          if (outcome === null) {
            next?.();
            resolve(false);
          } else {
            writeNodeResponse(response, outcome);
            resolve(true);
          }
        } catch (error) {
          reject(error);
        }
      });
    });
  };
}
