// The app every Web-standard runtime test runs (bundled by esbuild into one ES module): the Web
// middleware with a small size limit and a short 202 timeout, and a `ping` handler slower than it.
import { createWebMiddleware } from '../../src/middleware/web/create-web-middleware.js';
import { Webhooks } from '../../src/webhooks.js';

declare const __WEBHOOK_SECRET__: string;

const webhooks = new Webhooks({
  secret: __WEBHOOK_SECRET__,
  // Failures are expected here (bad signatures); keep the runtime's stderr clean.
  log: { error: () => {}, warn: () => {} },
});
let pushes = 0;
webhooks.on('push', () => {
  pushes++;
});
webhooks.on('ping', () => new Promise((resolve) => setTimeout(resolve, 1500)));

const handle = createWebMiddleware(webhooks, { timeout: 300, maxPayloadBytes: 64 * 1024 });

/** Called as each runtime calls a handler: (request, info | server | env, ctx). */
export function middleware(request: Request, second?: unknown, third?: unknown): Promise<Response> {
  if (new URL(request.url).pathname === '/count') {
    return Promise.resolve(Response.json({ pushes }));
  }
  return handle(request, second, third as (() => unknown) | undefined);
}

export default { fetch: middleware };
