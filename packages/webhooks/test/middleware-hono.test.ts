// Hono on Node (@hono/node-server): the Node middleware on the adapter's raw req/res, and the
// Web middleware on Hono's Request, both through the full status matrix.
import type { AddressInfo } from 'node:net';
import { type HttpBindings, serve } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import { createNodeMiddleware } from '../src/middleware/node/create-node-middleware.js';
import type { MiddlewareOptions } from '../src/middleware/types.js';
import { createWebMiddleware } from '../src/middleware/web/create-web-middleware.js';
import type { Webhooks } from '../src/webhooks.js';
import { sendHttp } from './helpers/http-request.js';
import { describeStatusMatrix } from './helpers/middleware-matrix.js';

async function serveHono(app: Hono<{ Bindings: HttpBindings }>) {
  app.notFound((c) => c.text('hono fallthrough', 404));
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () =>
      resolve(started),
    );
  });
  const { port } = server.address() as AddressInfo;
  return {
    send: (req: Parameters<typeof sendHttp>[1]) => sendHttp(port, req),
    close: () =>
      new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
    unmatched: { status: 404, text: 'hono fallthrough' },
  };
}

// The recipe: the Node middleware gets the adapter's IncomingMessage/ServerResponse, and Hono
// is told the response was sent.
describeStatusMatrix(
  'Hono + @hono/node-server (Node middleware)',
  (webhooks: Webhooks, options: MiddlewareOptions) => {
    const middleware = createNodeMiddleware(webhooks, options);
    const app = new Hono<{ Bindings: HttpBindings }>();
    app.use('*', async (c, next) => {
      if (await middleware(c.env.incoming, c.env.outgoing)) return RESPONSE_ALREADY_SENT;
      await next();
    });
    return serveHono(app);
  },
);

describeStatusMatrix(
  'Hono + @hono/node-server (Web middleware)',
  (webhooks: Webhooks, options: MiddlewareOptions) => {
    const middleware = createWebMiddleware(webhooks, options);
    const app = new Hono<{ Bindings: HttpBindings }>();
    app.use('*', (c) => middleware(c.req.raw, () => c.text('hono fallthrough', 404)));
    return serveHono(app);
  },
);
