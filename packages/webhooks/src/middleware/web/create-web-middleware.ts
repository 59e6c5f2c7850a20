import { createMiddleware, type MiddlewareOutcome } from '../create-middleware.js';
import { getRequestPathname } from '../get-request-pathname.js';
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
 * A handler for Web-standard runtimes. As in `@octokit/webhooks`, `middleware(request)` and
 * `middleware(request, response, next)` answer other paths with an empty 200 after calling
 * `next` (its result ignored). `middleware(request, next)` (a function second) resolves what
 * `next` returns instead, for routers that chain handlers. A second argument that is not a
 * function (Deno's `info`, Bun's `server`) is ignored.
 */
export interface WebMiddleware {
  (request: Request, next?: () => WebNextResult): Promise<Response>;
  (request: Request, response: unknown, next?: () => unknown): Promise<Response>;
}

const encoder = new TextEncoder();

const webAdapter: RequestAdapter<Request> = {
  getUrl: (request) => request.url,
  getPathname: (request) => getRequestPathname(request.url),
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
 * functions, Hono...): takes a `Request`, resolves a `Response`. Requests for other paths get
 * what `@octokit/webhooks` answers (an empty 200, after calling a `next` passed third), or what
 * a `next` passed second returns.
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
    if (typeof second === 'function') {
      const result: unknown = await second();
      if (result instanceof Response) return result;
    } else if (typeof third === 'function') {
      // As the peer: called, not awaited, its result ignored.
      third();
    }
    return new Response(null, { status: 200 });
  } as WebMiddleware;
}
