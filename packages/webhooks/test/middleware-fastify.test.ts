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
