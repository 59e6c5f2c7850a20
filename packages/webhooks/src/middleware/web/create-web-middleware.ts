import { UnknownRouteError } from '../../errors.js';
import { createMiddleware, type MiddlewareOutcome } from '../create-middleware.js';
import { jsonError } from '../json-response.js';
import { normalizeTrailingSlashes } from '../normalize-trailing-slashes.js';
import { resolveMiddlewareOptions } from '../resolve-middleware-options.js';
import type {
  MiddlewareOptions,
  MiddlewareResponse,
  RequestAdapter,
  WebhooksLike,
} from '../types.js';
import { readWebBody } from './read-web-body.js';

/** What a Web middleware's `next` may return. */
type WebNextResult = Response | Promise<Response>;

/**
 * A handler for Web-standard runtimes; `next` answers requests for other paths. It may come
 * second, or third as in `@octokit/webhooks` (`middleware(request, undefined, next)`); a second
 * argument that is not a function (Deno's `info`, Bun's `server`) is ignored.
 */
export interface WebMiddleware {
  (request: Request, next?: () => WebNextResult): Promise<Response>;
  (request: Request, response: unknown, next?: () => unknown): Promise<Response>;
}

const encoder = new TextEncoder();

const webAdapter: RequestAdapter<Request> = {
  getPathname: (request) => {
    try {
      return normalizeTrailingSlashes(new URL(request.url).pathname);
    } catch {
      return null;
    }
  },
  getMethod: (request) => request.method,
  getHeader: (request, name) => request.headers.get(name) ?? undefined,
  readBody: readWebBody,
};

function toResponse(outcome: MiddlewareResponse): Response {
  // Bytes, so Content-Length counts bytes even for non-ASCII text.
  const body = encoder.encode(outcome.body);
  return new Response(body, {
    status: outcome.status,
    headers: { ...outcome.headers, 'content-length': String(body.length) },
  });
}

/**
 * Receives deliveries on Web-standard runtimes (Deno, Bun, Cloudflare Workers, Vercel/Netlify
 * functions, Hono...): takes a `Request`, resolves a `Response`. Requests for other paths call
 * `next()` when given and resolve what it returns when that is a `Response`; otherwise they get
 * a 404 JSON `{ error }`, so misrouted deliveries are visible at the provider.
 *
 * @example
 * ```ts
 * import { Webhooks, createWebMiddleware } from '@sluice/webhooks';
 *
 * const webhooks = new Webhooks({ secret: Deno.env.get('WEBHOOK_SECRET')! });
 * const handle = createWebMiddleware(webhooks);
 * Deno.serve((request) => handle(request));
 * ```
 */
export function createWebMiddleware(
  webhooks: WebhooksLike,
  options?: MiddlewareOptions,
): WebMiddleware {
  const handle = createMiddleware(
    webAdapter,
    webhooks,
    resolveMiddlewareOptions(webhooks, options),
  );
  return async function sluiceWebhooksWebMiddleware(
    request: Request,
    second?: unknown,
    third?: unknown,
  ): Promise<Response> {
    const outcome = await new Promise<MiddlewareOutcome>((resolve) => handle(request, resolve));
    if (outcome !== null) return toResponse(outcome);
    const next = typeof second === 'function' ? second : typeof third === 'function' ? third : null;
    if (next !== null) {
      const result: unknown = await next();
      if (result instanceof Response) return result;
    }
    const error = new UnknownRouteError({
      details: `${request.method} ${webAdapter.getPathname(request) ?? request.url}`,
    });
    return toResponse(jsonError(error.status, error.message));
  } as WebMiddleware;
}
