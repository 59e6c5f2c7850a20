import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createNodeMiddleware } from '../src/middleware/node/create-node-middleware.js';
import type { MiddlewareOptions } from '../src/middleware/types.js';
import type { Webhooks } from '../src/webhooks.js';
import { sendHttp } from './helpers/http-request.js';
import {
  createMatrixWebhooks,
  delivery,
  describeStatusMatrix,
  PATH,
} from './helpers/middleware-matrix.js';

// The README recipe: run the middleware in an onRequest hook, before Fastify parses the body.
async function startFastify(webhooks: Webhooks, options: MiddlewareOptions) {
  const app = Fastify();
  const middleware = createNodeMiddleware(webhooks, options);
  app.addHook('onRequest', async (request, reply) => {
    if (await middleware(request.raw, reply.raw)) reply.hijack();
  });
  app.get('/health', async () => ({ ok: true }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    close: () => app.close(),
    send: (req: Parameters<typeof sendHttp>[1]) => sendHttp(port, req),
  };
}

describeStatusMatrix('Fastify 5 (onRequest hook)', async (webhooks, options) => {
  const t = await startFastify(webhooks, options);
  return {
    send: t.send,
    close: t.close,
    unmatched: {
      status: 404,
      json: undefined,
    },
  };
});

describe('Fastify recipe', () => {
  it('leaves other routes to Fastify', async () => {
    const { webhooks } = createMatrixWebhooks();
    const t = await startFastify(webhooks, {});
    try {
      const health = await t.send({ method: 'GET', path: '/health' });
      expect(health.status).toBe(200);
      expect(JSON.parse(health.text)).toEqual({ ok: true });
      const push = JSON.stringify({ ref: 'refs/heads/main', commits: [] });
      expect((await t.send(delivery('push', push))).status).toBe(200);
      expect((await t.send({ ...delivery('push', push), path: `${PATH}/x` })).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});

// The other recipe: Fastify parses JSON bodies as raw bytes (parseAs: 'buffer') and the route
// hands them to the middleware as req.rawBody, so other routes keep Fastify's own body parsing.
async function startFastifyRawBody(webhooks: Webhooks, options: MiddlewareOptions) {
  const app = Fastify();
  const middleware = createNodeMiddleware(webhooks, options);
  // Replaces Fastify's JSON parser (string parsers are matched before patterns).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: 30 * 1024 * 1024 },
    (_request, body, done) => done(null, body),
  );
  // Other types reach the route too, so the middleware answers them (415 with its message).
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.all('/*', async (request, reply) => {
    Object.assign(request.raw, { rawBody: request.body });
    if (await middleware(request.raw, reply.raw)) return reply.hijack();
    return reply.code(404).type('text/plain').send('fastify fallthrough');
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    close: () => app.close(),
    send: (req: Parameters<typeof sendHttp>[1]) => sendHttp(port, req),
  };
}

describeStatusMatrix('Fastify 5 (raw body route)', async (webhooks, options) => {
  const t = await startFastifyRawBody(webhooks, options);
  return { send: t.send, close: t.close, unmatched: { status: 404, text: 'fastify fallthrough' } };
});
