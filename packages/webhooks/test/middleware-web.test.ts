import { describe, expect, it } from 'vitest';
import { createWebMiddleware } from '../src/middleware/web/create-web-middleware.js';
import {
  createMatrixWebhooks,
  delivery,
  describeStatusMatrix,
  PATH,
} from './helpers/middleware-matrix.js';

const encoder = new TextEncoder();

function toRequest(req: {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array | ReadableStream<Uint8Array>;
}): Request {
  const method = req.method ?? 'POST';
  // Bytes, not a string: a string body would make Request add text/plain on its own.
  const body =
    method === 'GET' || method === 'HEAD'
      ? undefined
      : typeof req.body === 'string'
        ? encoder.encode(req.body)
        : req.body;
  return new Request(`http://receiver.test${req.path ?? '/'}`, {
    method,
    headers: req.headers,
    body,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
}

async function read(response: Response) {
  const buffer = new Uint8Array(await response.arrayBuffer());
  return {
    status: response.status,
    headers: response.headers,
    text: new TextDecoder().decode(buffer),
    bytes: buffer.length,
  };
}

describeStatusMatrix('Web Request/Response', async (webhooks, options) => {
  const middleware = createWebMiddleware(webhooks, options);
  return {
    send: async (req) => read(await middleware(toRequest(req))),
    close: async () => {},
    unmatched: { status: 200, text: '' },
  };
});

const push = JSON.stringify({ ref: 'refs/heads/main', commits: [] });

describe('web middleware specifics', () => {
  it('returns a Response and sets Content-Length in bytes', async () => {
    const { webhooks } = createMatrixWebhooks();
    const response = await createWebMiddleware(webhooks)(toRequest(delivery('push', push)));
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe('3');
  });

  it('calls next() for other paths when given', async () => {
    const { webhooks } = createMatrixWebhooks();
    const middleware = createWebMiddleware(webhooks);
    const response = await middleware(
      toRequest({ method: 'GET', path: '/health' }),
      () => new Response('healthy', { status: 203 }),
    );
    expect(response.status).toBe(203);
    expect(await response.text()).toBe('healthy');
  });

  it('500 at once when the body was already read', async () => {
    const { webhooks } = createMatrixWebhooks();
    const request = toRequest(delivery('push', push));
    await request.text();
    const res = await read(await createWebMiddleware(webhooks, { timeout: 60_000 })(request));
    expect(res.status).toBe(500);
    expect(JSON.parse(res.text).error).toMatch(
      /^BodyAlreadyParsedError: .*request\.bodyUsed is true.*request\.clone\(\)/,
    );
  });

  it('413 from Content-Length, and for a stream as soon as it passes the limit', async () => {
    const { webhooks } = createMatrixWebhooks();
    const middleware = createWebMiddleware(webhooks, { maxPayloadBytes: 1024 });
    const declared = await middleware(
      toRequest(delivery('push', JSON.stringify({ ref: 'x'.repeat(2000) }))),
    );
    expect(declared.status).toBe(413);

    let pulled = 0;
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 4096;
        controller.enqueue(new Uint8Array(4096).fill(0x61));
        if (pulled > 64 * 1024 * 1024) controller.close();
      },
      cancel() {
        cancelled = true;
      },
    });
    const streamed = await middleware(toRequest({ ...delivery('push', 'x'), body: stream }));
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toEqual({
      error:
        'PayloadTooLargeError: Request body too large: the limit is 1024 bytes (option "maxPayloadBytes")',
    });
    expect(pulled).toBeLessThan(64 * 1024);
    expect(cancelled).toBe(true);
  });

  it('matches the path with repeated trailing slashes', async () => {
    const { webhooks } = createMatrixWebhooks();
    const res = await createWebMiddleware(webhooks)(
      toRequest({ ...delivery('push', push), path: `${PATH}///` }),
    );
    expect(res.status).toBe(200);
  });
});
