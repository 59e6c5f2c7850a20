import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryError } from './errors.js';
import { createWebhookSender } from './webhook-sender.js';

let server: Server;
let port = 0;
const bodies: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString());
      if (req.url === '/slow') return; // never answers
      if (req.url === '/redirect') return res.writeHead(302, { location: '/ok' }).end();
      if (req.url === '/huge') {
        res.writeHead(200);
        const chunk = Buffer.alloc(64 * 1024, 120);
        for (let i = 0; i < 64; i++) res.write(chunk);
        return res.end();
      }
      res.writeHead(req.url === '/fail' ? 503 : 204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

async function failure(p: Promise<unknown>): Promise<DeliveryError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}

describe('createWebhookSender', () => {
  const body = Buffer.from('{"activities":[]}');

  it('posts the exact body to an allowed host and resolves on 2xx', async () => {
    const sender = createWebhookSender({ allowHosts: [`127.0.0.1:${port}`] });
    try {
      expect(await sender.post(`http://127.0.0.1:${port}/ok`, { 'x-a': '1' }, body)).toEqual({
        status: 204,
      });
      expect(bodies.at(-1)).toBe(body.toString());
    } finally {
      sender.close();
    }
  });

  it('fails non-2xx answers (redirects are not followed), timeouts and huge answers are cut', async () => {
    const sender = createWebhookSender({ allowHosts: ['127.0.0.1'], timeoutMs: 300 });
    try {
      const e503 = await failure(sender.post(`http://127.0.0.1:${port}/fail`, {}, body));
      expect([e503.code, e503.status]).toEqual(['WEBHOOK_HTTP_STATUS', 503]);
      const e302 = await failure(sender.post(`http://127.0.0.1:${port}/redirect`, {}, body));
      expect(e302.status).toBe(302);
      const slow = await failure(sender.post(`http://127.0.0.1:${port}/slow`, {}, body));
      expect(slow.code).toBe('WEBHOOK_TIMEOUT');
      // 4 MiB answer: only the first few KiB are read, the 200 still counts.
      expect(await sender.post(`http://127.0.0.1:${port}/huge`, {}, body)).toEqual({ status: 200 });
      const refused = await failure(sender.post('http://127.0.0.1:1/hook', {}, body));
      expect(refused.code).toBe('WEBHOOK_NETWORK');
    } finally {
      sender.close();
    }
  });

  it('refuses private addresses at connect time unless the host is allowed', async () => {
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    const sender = createWebhookSender({ resolve, allowHosts: [`good.example:${port}`] });
    try {
      const before = bodies.length;
      const dns = await failure(sender.post(`http://evil.example:${port}/ok`, {}, body));
      expect(dns.code).toBe('WEBHOOK_BLOCKED_ADDRESS');
      expect(dns.message).toContain('loopback');
      for (const literal of [
        'http://10.0.0.1/',
        'http://[::1]/',
        'http://2130706433/',
        'http://169.254.169.254/',
      ]) {
        expect((await failure(sender.post(literal, {}, body))).code).toBe(
          'WEBHOOK_BLOCKED_ADDRESS',
        );
      }
      expect(bodies.length).toBe(before);
      expect(await sender.post(`http://good.example:${port}/ok`, {}, body)).toEqual({
        status: 204,
      });
      for (const bad of ['ftp://x/', 'not a url', 'http://user:pw@example.com/']) {
        expect((await failure(sender.post(bad, {}, body))).code).toBe('WEBHOOK_BAD_URL');
      }
    } finally {
      sender.close();
    }
  });

  it('sends again, once, on a fresh connection when a kept-alive one was closed under it', async () => {
    // A receiver that drops every connection at its second request without answering: the
    // idle-timeout race of keep-alive, made certain.
    let connections = 0;
    const dropper = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const socket = req.socket as typeof req.socket & { requests?: number };
        socket.requests = (socket.requests ?? 0) + 1;
        if (socket.requests > 1) socket.destroy();
        else res.writeHead(200).end();
      });
    });
    dropper.on('connection', () => connections++);
    await new Promise<void>((r) => dropper.listen(0, '127.0.0.1', r));
    const at = `127.0.0.1:${(dropper.address() as { port: number }).port}`;
    const sender = createWebhookSender({ allowHosts: [at], maxSocketsPerHost: 1 });
    try {
      expect(await sender.post(`http://${at}/a`, {}, body)).toEqual({ status: 200 });
      expect(await sender.post(`http://${at}/b`, {}, body)).toEqual({ status: 200 });
      expect(connections).toBe(2);
    } finally {
      sender.close();
      dropper.closeAllConnections();
      dropper.close();
    }
  });
});
