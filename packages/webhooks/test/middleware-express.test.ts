import { createServer, type IncomingMessage } from 'node:http';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { createNodeMiddleware } from '../src/middleware/node/create-node-middleware.js';
import type { MiddlewareOptions } from '../src/middleware/types.js';
import type { Webhooks } from '../src/webhooks.js';
import { sendHttp } from './helpers/http-request.js';
import { listen } from './helpers/listen.js';
import {
  createMatrixWebhooks,
  delivery,
  describeStatusMatrix,
  PATH,
} from './helpers/middleware-matrix.js';

async function startExpress(
  webhooks: Webhooks,
  options: MiddlewareOptions,
  setup?: (app: express.Express) => void,
) {
  const app = express();
  setup?.(app);
  app.use(createNodeMiddleware(webhooks, options));
  app.use((_req, res) => {
    res.status(404).type('text/plain').send('express fallthrough');
  });
  const { port, close } = await listen(createServer(app));
  return { port, close, send: (req: Parameters<typeof sendHttp>[1]) => sendHttp(port, req) };
}

describeStatusMatrix('Express 5', async (webhooks, options) => {
  const t = await startExpress(webhooks, options);
  return { send: t.send, close: t.close, unmatched: { status: 404, text: 'express fallthrough' } };
});

const spaced = '{ "ref": "refs/heads/main",  "commits": [], "note": "ünïcödé" }';

describe('Express recipes', () => {
  it('express.json() mounted first: a clear 500 at once, not a timeout', async () => {
    const { webhooks } = createMatrixWebhooks();
    const t = await startExpress(webhooks, { timeout: 60_000 }, (app) => app.use(express.json()));
    try {
      const started = Date.now();
      const res = await t.send(delivery('push', spaced));
      expect(Date.now() - started).toBeLessThan(2000);
      expect(res.status).toBe(500);
      expect(JSON.parse(res.text).error).toMatch(
        /^BodyAlreadyParsedError: Request body was already consumed by another middleware; raw bytes are needed: req.body is an already parsed object.*express\.json\(\{ verify/,
      );
    } finally {
      await t.close();
    }
  });

  it('express.json({ verify }) keeping req.rawBody: 200 on the exact bytes', async () => {
    const { webhooks, received } = createMatrixWebhooks();
    const t = await startExpress(webhooks, {}, (app) =>
      app.use(
        express.json({
          verify: (req: IncomingMessage & { rawBody?: Buffer }, _res, buf) => {
            req.rawBody = buf;
          },
        }),
      ),
    );
    try {
      expect((await t.send(delivery('push', spaced))).status).toBe(200);
      expect(received).toContain('delivery-push');
    } finally {
      await t.close();
    }
  });

  it("express.raw({ type: 'application/json' }): 200 on the Buffer body", async () => {
    const { webhooks } = createMatrixWebhooks();
    const t = await startExpress(webhooks, {}, (app) =>
      app.use(express.raw({ type: 'application/json' })),
    );
    try {
      expect((await t.send(delivery('push', spaced))).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it("express.text({ type: 'application/json' }): 200 on the string body", async () => {
    const { webhooks } = createMatrixWebhooks();
    const t = await startExpress(webhooks, {}, (app) =>
      app.use(express.text({ type: 'application/json' })),
    );
    try {
      expect((await t.send(delivery('push', spaced))).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('beside other routes, and under a mount prefix (path relative to the mount)', async () => {
    const { webhooks } = createMatrixWebhooks();
    const app = express();
    app.post('/other', (_req, res) => {
      res.status(201).send('other route');
    });
    app.use(createNodeMiddleware(webhooks, { path: PATH }));
    // Express strips the mount prefix from req.url, so `path` is what follows it.
    app.use('/mounted', createNodeMiddleware(webhooks, { path: '/hooks' }));
    const { port, close } = await listen(createServer(app));
    try {
      expect((await sendHttp(port, delivery('push', spaced))).status).toBe(200);
      const other = await sendHttp(port, { ...delivery('push', spaced), path: '/other' });
      expect(other.status).toBe(201);
      const mounted = await sendHttp(port, { ...delivery('push', spaced), path: '/mounted/hooks' });
      expect(mounted.status).toBe(200);
    } finally {
      await close();
    }
  });
});
