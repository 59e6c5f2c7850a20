import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeMiddleware } from '../src/middleware/node/create-node-middleware.js';
import type { MiddlewareOptions } from '../src/middleware/types.js';
import { Webhooks } from '../src/webhooks.js';
import { captureLog } from './helpers/capture-log.js';
import { sendHttp } from './helpers/http-request.js';
import { independentSign } from './helpers/independent-sign.js';
import { listen } from './helpers/listen.js';
import {
  createMatrixWebhooks,
  delivery,
  describeStatusMatrix,
  PATH,
  SECRET,
} from './helpers/middleware-matrix.js';

async function startNode(
  webhooks: Webhooks,
  options: MiddlewareOptions,
  prepare?: (req: IncomingMessage) => Promise<void> | void,
) {
  const middleware = createNodeMiddleware(webhooks, options);
  const results: boolean[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    await prepare?.(req);
    const handled = await middleware(req, res);
    results.push(handled);
    if (!handled) res.writeHead(404, { 'content-type': 'text/plain' }).end('fallthrough');
  });
  const { port, close } = await listen(server);
  return {
    port,
    results,
    close,
    send: (req: Parameters<typeof sendHttp>[1]) => sendHttp(port, req),
  };
}

describeStatusMatrix('node:http', async (webhooks, options) => {
  const { send, close } = await startNode(webhooks, options);
  return { send, close, unmatched: { status: 404, text: 'fallthrough' } };
});

const push = JSON.stringify({ ref: 'refs/heads/main', commits: [] });

describe('node middleware specifics', () => {
  it('resolves false and calls next() for other paths, true when it answered', async () => {
    const { webhooks } = createMatrixWebhooks();
    const middleware = createNodeMiddleware(webhooks);
    const server = createServer(async (req, res) => {
      let nextCalled = false;
      const handled = await middleware(req, res, () => {
        nextCalled = true;
      });
      if (!handled) res.writeHead(299).end(JSON.stringify({ handled, nextCalled }));
    });
    const { port, close } = await listen(server);
    try {
      const other = await sendHttp(port, { method: 'GET', path: '/health' });
      expect(other.status).toBe(299);
      expect(JSON.parse(other.text)).toEqual({ handled: false, nextCalled: true });
      const ours = await sendHttp(port, delivery('push', push));
      expect(ours.status).toBe(200);
    } finally {
      await close();
    }
  });

  it('honours a custom path', async () => {
    const { webhooks } = createMatrixWebhooks();
    const t = await startNode(webhooks, { path: '/hooks/' });
    try {
      expect((await t.send({ ...delivery('push', push), path: '/hooks' })).status).toBe(200);
      expect((await t.send(delivery('push', push))).status).toBe(404);
    } finally {
      await t.close();
    }
  });

  describe('size limit', () => {
    const log = captureLog();
    const { webhooks } = createMatrixWebhooks();
    let t: Awaited<ReturnType<typeof startNode>>;
    beforeAll(async () => {
      t = await startNode(webhooks, { maxPayloadBytes: 1024, log });
    });
    afterAll(() => t.close());

    it('413 from the declared Content-Length, before reading', async () => {
      const big = JSON.stringify({ ref: 'x'.repeat(2000) });
      const res = await t.send(delivery('push', big));
      expect(res.status).toBe(413);
      expect(JSON.parse(res.text)).toEqual({
        error:
          'PayloadTooLargeError: Request body too large: the limit is 1024 bytes (option "maxPayloadBytes")',
      });
      expect(res.headers.get('connection')).toBe('close');
    });

    it('413 for a chunked body as soon as it passes the limit, without reading it all', async () => {
      let produced = 0;
      const total = 64 * 1024 * 1024;
      const stream = new Readable({
        read() {
          if (produced >= total) return this.push(null);
          produced += 16 * 1024;
          this.push(Buffer.alloc(16 * 1024, 0x61));
        },
      });
      const res = await t.send({ ...delivery('push', 'unused'), body: stream });
      expect(res.status).toBe(413);
      stream.destroy();
      // Far less than the 64 MiB offered was produced: the server stopped reading.
      expect(produced).toBeLessThan(16 * 1024 * 1024);
    });

    it('a body exactly at the limit is accepted', async () => {
      const shell = JSON.stringify({ ref: '' });
      const exact = JSON.stringify({ ref: 'y'.repeat(1024 - shell.length) });
      expect(Buffer.byteLength(exact)).toBe(1024);
      expect((await t.send(delivery('push', exact))).status).toBe(200);
    });
  });

  it('uses req.rawBody (Buffer or Uint8Array) as the exact signed bytes', async () => {
    const { webhooks, received } = createMatrixWebhooks();
    const t = await startNode(webhooks, {}, async (req) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks);
      Object.assign(req, {
        body: JSON.parse(raw.toString()),
        rawBody: req.headers['x-test-raw'] === 'uint8' ? new Uint8Array(raw) : raw,
      });
    });
    try {
      // Whitespace and key order would not survive a re-serialization: the raw bytes must be used.
      const spaced = '{ "ref" :  "refs/heads/main",\n "commits": [] }';
      expect((await t.send(delivery('push', spaced))).status).toBe(200);
      const res = await t.send(delivery('push', spaced, { 'x-test-raw': 'uint8' }));
      expect(res.status).toBe(200);
      expect(received.filter((id) => id === 'delivery-push')).toHaveLength(2);
    } finally {
      await t.close();
    }
  });

  it('uses a string req.body (serverless platforms) as the exact payload', async () => {
    const { webhooks } = createMatrixWebhooks();
    const t = await startNode(webhooks, {}, async (req) => {
      let text = '';
      for await (const chunk of req) text += String(chunk);
      Object.assign(req, { body: text });
    });
    try {
      const spaced = '{"ref":"refs/heads/main","commits":[],"note":"ünïcödé"}';
      expect((await t.send(delivery('push', spaced))).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('answers at once (500) when a parser consumed the body without raw bytes', async () => {
    const { webhooks } = createMatrixWebhooks();
    const t = await startNode(webhooks, { timeout: 60_000 }, async (req) => {
      let text = '';
      for await (const chunk of req) text += String(chunk);
      Object.assign(req, { body: JSON.parse(text) });
    });
    try {
      const started = Date.now();
      const res = await t.send(delivery('push', push));
      expect(Date.now() - started).toBeLessThan(2000);
      expect(res.status).toBe(500);
      const { error } = JSON.parse(res.text);
      expect(error).toMatch(/^BodyAlreadyParsedError: /);
      expect(error).toMatch(/req\.body is an already parsed object/);
      expect(error).toMatch(/req\.rawBody/);
    } finally {
      await t.close();
    }
  });

  it('survives a client that aborts mid-body', async () => {
    const log = captureLog();
    const { webhooks } = createMatrixWebhooks();
    const t = await startNode(webhooks, { log });
    try {
      const { request } = await import('node:http');
      await new Promise<void>((resolve) => {
        const req = request({
          host: '127.0.0.1',
          port: t.port,
          method: 'POST',
          path: PATH,
          headers: {
            'content-type': 'application/json',
            'content-length': '100000',
            'x-provider-event': 'push',
            'x-provider-delivery': 'aborted-1',
            'x-hub-signature-256': independentSign(SECRET, push),
          },
        });
        req.on('error', () => resolve());
        req.write('{"ref":');
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 50);
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(log.lines.warn.join('\n')).toMatch(
        /push delivery aborted-1 rejected with 400: RequestBodyError/,
      );
      // The server still serves.
      expect((await t.send(delivery('push', push))).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('does not write when another layer already answered', async () => {
    const { webhooks } = createMatrixWebhooks();
    const middleware = createNodeMiddleware(webhooks);
    const server = createServer(async (req, res) => {
      res.writeHead(201).end('someone else');
      await middleware(req, res);
    });
    const { port, close } = await listen(server);
    try {
      const res = await sendHttp(port, delivery('push', push));
      expect(res.status).toBe(201);
      expect(res.text).toBe('someone else');
    } finally {
      await close();
    }
  });

  it('answers 500 (no crash) when verifyAndReceive throws synchronously', async () => {
    const log = captureLog();
    const broken = {
      verifyAndReceive: (): Promise<void> => {
        throw new Error('sync failure');
      },
    };
    const middleware = createNodeMiddleware(broken, { log });
    const server = createServer((req, res) => {
      middleware(req, res);
    });
    const { port, close } = await listen(server);
    try {
      const res = await sendHttp(port, delivery('push', push));
      expect(res.status).toBe(500);
      expect(JSON.parse(res.text)).toEqual({ error: 'Error: sync failure' });
      expect(log.lines.error).toEqual(['AggregateError: sync failure']);
    } finally {
      await close();
    }
  });

  it.each([
    ['a missing Webhooks instance', undefined, {}],
    ['a relative path', new Webhooks({ secret: 's' }), { path: 'hooks' }],
    ['a negative timeout', new Webhooks({ secret: 's' }), { timeout: -1 }],
    ['a zero size limit', new Webhooks({ secret: 's' }), { maxPayloadBytes: 0 }],
  ])('throws a TypeError at creation for %s', (_label, webhooks, options) => {
    expect(() => createNodeMiddleware(webhooks as never, options)).toThrow(TypeError);
  });
});
