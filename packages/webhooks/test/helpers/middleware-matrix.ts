import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MiddlewareOptions } from '../../src/middleware/types.js';
import { Webhooks } from '../../src/webhooks.js';
import { captureLog } from './capture-log.js';
import { independentSign } from './independent-sign.js';

export interface SentRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

export interface Received {
  status: number;
  headers: Headers;
  text: string;
  /** Bytes of the body as received, to check Content-Length. */
  bytes: number;
}

export interface Transport {
  send(request: SentRequest): Promise<Received>;
  close(): Promise<void>;
  /** What an unmatched path yields on this transport. */
  unmatched: { status: number; text?: string; json?: { error: string } };
}

export const SECRET = 'matrix-secret';
export const PATH = '/api/hosting/webhooks';

export function delivery(
  name: string,
  payload: string,
  extra: Record<string, string> = {},
): SentRequest {
  return {
    method: 'POST',
    path: PATH,
    headers: {
      'content-type': 'application/json',
      'x-provider-event': name,
      'x-provider-delivery': `delivery-${name}`,
      'x-hub-signature-256': independentSign(SECRET, payload),
      ...extra,
    },
    body: payload,
  };
}

export function createMatrixWebhooks() {
  const log = captureLog();
  const webhooks = new Webhooks({ secret: SECRET, log });
  const received: string[] = [];
  webhooks.on('push', ({ id }) => void received.push(id));
  webhooks.on('issues.opened', () => {
    throw new Error('handler broke: ünïcödé 🚀');
  });
  webhooks.on('issues.closed', () => {
    throw Object.assign(new Error('upstream said unprocessable'), { status: 422 });
  });
  webhooks.on('ping', async ({ id }) => {
    await new Promise((resolve) => setTimeout(resolve, 400));
    received.push(`slow:${id}`);
  });
  return { webhooks, log, received };
}

/** The status matrix every transport must satisfy. */
export function describeStatusMatrix(
  label: string,
  start: (webhooks: Webhooks, options: MiddlewareOptions) => Promise<Transport>,
): void {
  describe(`${label}: status matrix`, () => {
    const ctx = createMatrixWebhooks();
    let transport: Transport;
    beforeAll(async () => {
      transport = await start(ctx.webhooks, { timeout: 150, log: ctx.log });
    });
    afterAll(() => transport.close());

    const push = JSON.stringify({ ref: 'refs/heads/main', commits: [], note: 'ünïcödé 🚀' });

    it('200 for a valid signed delivery, handlers run', async () => {
      const res = await transport.send(delivery('push', push));
      expect(res.status).toBe(200);
      expect(res.text).toBe('ok\n');
      expect(ctx.received).toContain('delivery-push');
    });

    it('200 with a trailing slash or a query string, and an uppercase charset content type', async () => {
      const req = delivery('push', push, { 'content-type': 'Application/JSON; charset=UTF-8' });
      expect((await transport.send({ ...req, path: `${PATH}/` })).status).toBe(200);
      expect((await transport.send({ ...req, path: `${PATH}?source=test` })).status).toBe(200);
    });

    it('passes other paths on', async () => {
      const res = await transport.send({ ...delivery('push', push), path: '/somewhere/else' });
      expect(res.status).toBe(transport.unmatched.status);
      if (transport.unmatched.text !== undefined) expect(res.text).toBe(transport.unmatched.text);
      if (transport.unmatched.json !== undefined) {
        expect(JSON.parse(res.text)).toEqual(transport.unmatched.json);
      }
    });

    it('404 JSON for a non-POST method on the path', async () => {
      const res = await transport.send({ method: 'GET', path: PATH });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(JSON.parse(res.text)).toEqual({ error: `Unknown route: GET ${PATH}` });
      const put = await transport.send({ ...delivery('push', push), method: 'PUT' });
      expect(JSON.parse(put.text)).toEqual({ error: `Unknown route: PUT ${PATH}` });
    });

    it('415 JSON for a form-encoded delivery', async () => {
      const form = `payload=${encodeURIComponent(push)}`;
      const res = await transport.send(
        delivery('push', form, { 'content-type': 'application/x-www-form-urlencoded' }),
      );
      expect(res.status).toBe(415);
      expect(JSON.parse(res.text).error).toBe(
        'Unsupported "Content-Type" header value. Must be "application/json"',
      );
    });

    it('415 JSON for text/plain and for a missing content type', async () => {
      const text = await transport.send(delivery('push', push, { 'content-type': 'text/plain' }));
      expect(text.status).toBe(415);
      expect(JSON.parse(text.text).error).toBe(
        'Unsupported "Content-Type" header value. Must be "application/json"',
      );
      const req = delivery('push', push);
      const { 'content-type': _dropped, ...headers } = req.headers ?? {};
      const none = await transport.send({ ...req, headers });
      expect(none.status).toBe(415);
      expect(JSON.parse(none.text).error).toBe(
        'Unsupported "Content-Type" header value. Must be "application/json"',
      );
    });

    it('400 JSON naming every missing webhook header', async () => {
      const res = await transport.send({
        method: 'POST',
        path: PATH,
        headers: { 'content-type': 'application/json' },
        body: push,
      });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text)).toEqual({
        error:
          'Required headers missing: x-provider-event, x-hub-signature-256, x-provider-delivery',
      });
      const req = delivery('push', push);
      const { 'x-hub-signature-256': _sig, ...headers } = req.headers ?? {};
      const one = await transport.send({ ...req, headers });
      expect(JSON.parse(one.text)).toEqual({
        error: 'Required headers missing: x-hub-signature-256',
      });
    });

    it('400 JSON for a bad signature; handlers do not run', async () => {
      const before = ctx.received.length;
      const res = await transport.send(
        delivery('push', push, { 'x-hub-signature-256': independentSign('wrong', push) }),
      );
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text)).toEqual({
        error: 'Error: [@sluice/webhooks] signature does not match event payload and secret',
      });
      expect(ctx.received.length).toBe(before);
      const sha1 = await transport.send(
        delivery('push', push, { 'x-hub-signature-256': `sha1=${'a'.repeat(40)}` }),
      );
      expect(sha1.status).toBe(400);
    });

    it('400 JSON for a signed body that is not JSON', async () => {
      const res = await transport.send(delivery('push', '{"ref": '));
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text)).toEqual({ error: 'SyntaxError: Invalid JSON' });
    });

    it('400 JSON for an empty body: a signature mismatch, as for the peer', async () => {
      const res = await transport.send(delivery('push', ''));
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text)).toEqual({
        error: 'Error: [@sluice/webhooks] signature does not match event payload and secret',
      });
    });

    it('500 JSON when a handler fails, with a byte-exact Content-Length for non-ASCII', async () => {
      const body = JSON.stringify({ action: 'opened', issue: { id: 1 } });
      const res = await transport.send(delivery('issues', body));
      expect(res.status).toBe(500);
      expect(JSON.parse(res.text)).toEqual({ error: 'Error: handler broke: ünïcödé 🚀' });
      expect(Number(res.headers.get('content-length'))).toBe(res.bytes);
      expect(res.bytes).toBeGreaterThan(res.text.length);
    });

    it("uses a failing handler's own HTTP status", async () => {
      const body = JSON.stringify({ action: 'closed', issue: { id: 1 } });
      const res = await transport.send(delivery('issues', body));
      expect(res.status).toBe(422);
      expect(JSON.parse(res.text)).toEqual({ error: 'Error: upstream said unprocessable' });
    });

    it('202 when handlers outlast the timeout; they still finish', async () => {
      const body = JSON.stringify({ zen: 'slow', hook_id: 1 });
      const res = await transport.send(delivery('ping', body));
      expect(res.status).toBe(202);
      expect(res.text).toBe('still processing\n');
      expect(ctx.received).not.toContain('slow:delivery-ping');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(ctx.received).toContain('slow:delivery-ping');
    });

    it('never logs the secret or a signature', () => {
      const all = ctx.log.all();
      expect(all).not.toContain(SECRET);
      expect(all).not.toMatch(/sha256=[0-9a-f]{8}/);
      // log.error gets the AggregateError itself, as @octokit/webhooks passes it.
      expect(ctx.log.lines.error).toContain('AggregateError: handler broke: ünïcödé 🚀');
    });
  });
}
