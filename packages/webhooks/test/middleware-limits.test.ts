// Receiver memory. A middleware caps the requests it handles at once (429), the body
// bytes they buffer together (503), and how long a body may take (408); memory goes back after
// a burst. The RSS test runs the receiver in a child process and asserts generous bounds only.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createNodeMiddleware } from '../src/middleware/node/create-node-middleware.js';
import type { MiddlewareOptions } from '../src/middleware/types.js';
import { createWebMiddleware } from '../src/middleware/web/create-web-middleware.js';
import { Webhooks } from '../src/webhooks.js';
import { captureLog } from './helpers/capture-log.js';
import { independentSign } from './helpers/independent-sign.js';
import { listen } from './helpers/listen.js';
import { PATH, SECRET } from './helpers/middleware-matrix.js';

const MiB = 1024 * 1024;

interface Upload {
  /** `Content-Length` to declare; chunked transfer encoding when undefined. */
  declared?: number;
  /** Body bytes to send in all. */
  total: number;
  chunk: number;
  intervalMs: number;
  signature?: string;
  body?: Uint8Array;
  /** Milliseconds to wait after the first chunk before sending the rest. */
  holdAfterFirstMs?: number;
}

interface UploadResult {
  status: number | undefined;
  retryAfter: string | undefined;
  sent: number;
  /** The server closed the connection. */
  closedByServer: boolean;
}

/**
 * Uploads a body slowly over a raw socket, `chunk` bytes every `intervalMs`, and resolves when
 * the server has answered and closed, or the body is sent and answered.
 */
function slowUpload(port: number, upload: Upload): Promise<UploadResult> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const filler = new Uint8Array(upload.chunk).fill(0x61);
    let sent = 0;
    let response = '';
    let closedByServer = false;
    let timer: ReturnType<typeof setInterval> | undefined;
    const head = [
      `POST ${PATH} HTTP/1.1`,
      'host: 127.0.0.1',
      'content-type: application/json',
      'x-provider-event: push',
      'x-provider-delivery: slow-1',
      `x-hub-signature-256: ${upload.signature ?? `sha256=${'0'.repeat(64)}`}`,
      upload.declared === undefined
        ? 'transfer-encoding: chunked'
        : `content-length: ${upload.declared}`,
      '',
      '',
    ].join('\r\n');
    const finish = (): void => {
      clearInterval(timer);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(response)?.[1];
      const retryAfter = /\r\nretry-after: (\d+)/i.exec(response)?.[1];
      resolve({
        status: status === undefined ? undefined : Number(status),
        retryAfter,
        sent,
        closedByServer,
      });
    };
    socket.on('data', (data: Buffer) => {
      response += data.toString('latin1');
      // Answered after the whole body was sent: done, close from this side.
      if (sent >= upload.total && /\r\n\r\n/.test(response)) socket.destroy();
    });
    socket.on('end', () => {
      closedByServer = true;
    });
    socket.on('error', () => {
      closedByServer = true;
    });
    socket.on('close', finish);
    socket.write(head);
    let firstSentAt = 0;
    timer = setInterval(() => {
      if (socket.destroyed || socket.writableLength > MiB) return;
      if (sent > 0 && Date.now() - firstSentAt < (upload.holdAfterFirstMs ?? 0)) return;
      const size = Math.min(upload.chunk, upload.total - sent);
      if (size <= 0) return;
      const piece = upload.body
        ? upload.body.subarray(sent, sent + size)
        : filler.subarray(0, size);
      if (upload.declared === undefined) {
        socket.write(`${size.toString(16)}\r\n`);
        socket.write(piece);
        socket.write('\r\n');
      } else {
        socket.write(piece);
      }
      if (sent === 0) firstSentAt = Date.now();
      sent += size;
      if (sent >= upload.total) {
        clearInterval(timer);
        if (upload.declared === undefined) socket.write('0\r\n\r\n');
      }
    }, upload.intervalMs);
  });
}

async function startReceiver(options: MiddlewareOptions) {
  const log = captureLog();
  const webhooks = new Webhooks({ secret: SECRET, log });
  const middleware = createNodeMiddleware(webhooks, { log, ...options });
  const server = createServer((req, res) => {
    void middleware(req, res).then((handled) => {
      if (!handled) res.writeHead(404).end();
    });
  });
  return { ...(await listen(server)), log, webhooks };
}

describe('request limits (node:http)', () => {
  it('429 with Retry-After beyond maxConcurrentRequests; places are given back', async () => {
    const { port, close } = await startReceiver({ maxConcurrentRequests: 2 });
    try {
      const slow = { total: 40, chunk: 10, intervalMs: 100, declared: 40 };
      const first = slowUpload(port, slow);
      const second = slowUpload(port, slow);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const third = await slowUpload(port, { ...slow, intervalMs: 10 });
      expect(third.status).toBe(429);
      expect(third.retryAfter).toBe('5');
      expect(third.closedByServer).toBe(true);
      // Bad signatures: the two admitted ones were read to the end and answered 400.
      expect((await first).status).toBe(400);
      expect((await second).status).toBe(400);
      const again = await slowUpload(port, { ...slow, intervalMs: 5 });
      expect(again.status).toBe(400);
    } finally {
      await close();
    }
  });

  it('503 with Retry-After once the bytes that arrived would pass maxConcurrentBodyBytes', async () => {
    const { port, close } = await startReceiver({
      maxPayloadBytes: 2000,
      maxConcurrentBodyBytes: 3100,
    });
    try {
      // Two bodies hold 1,500 bytes each (sent at once, then the last byte much later).
      const held = {
        declared: 1501,
        total: 1501,
        chunk: 1500,
        intervalMs: 10,
        holdAfterFirstMs: 1500,
      };
      const first = slowUpload(port, held);
      const second = slowUpload(port, held);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const third = await slowUpload(port, {
        declared: 300,
        total: 300,
        chunk: 300,
        intervalMs: 1,
      });
      expect(third.status).toBe(503);
      expect(third.retryAfter).toBe('5');
      // A small one still fits in what is left.
      const small = await slowUpload(port, { declared: 10, total: 10, chunk: 10, intervalMs: 1 });
      expect(small.status).toBe(400);
      expect((await first).status).toBe(400);
      expect((await second).status).toBe(400);
      // Everything given back: the 300 bytes fit again.
      const again = await slowUpload(port, {
        declared: 300,
        total: 300,
        chunk: 300,
        intervalMs: 1,
      });
      expect(again.status).toBe(400);
    } finally {
      await close();
    }
  });

  it('bodies that declare 25 MiB and send nothing reserve nothing: a real delivery still gets 200', async () => {
    // The default sizes: 25 MiB per body, 100 MiB for all bodies at once.
    const { port, close, webhooks } = await startReceiver({ bodyTimeout: 2000 });
    try {
      let received = 0;
      webhooks.on('push', () => {
        received++;
      });
      const never = { declared: 26_214_400, total: 26_214_400, chunk: 0, intervalMs: 60_000 };
      const holders = Array.from({ length: 4 }, () => slowUpload(port, never));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const body = new TextEncoder().encode(JSON.stringify({ ref: 'refs/heads/main' }));
      const real = await slowUpload(port, {
        declared: body.length,
        total: body.length,
        chunk: body.length,
        intervalMs: 1,
        body,
        signature: independentSign(SECRET, body),
      });
      expect(real.status).toBe(200);
      expect(received).toBe(1);
      // The holders themselves are cut by bodyTimeout.
      for (const holder of await Promise.all(holders)) {
        expect(holder.status).toBe(408);
        expect(holder.closedByServer).toBe(true);
      }
    } finally {
      await close();
    }
  });

  it('a body that outgrows the shared budget while it arrives gets 503', async () => {
    const { port, close } = await startReceiver({
      maxPayloadBytes: 2000,
      maxConcurrentBodyBytes: 2000,
    });
    try {
      const held = slowUpload(port, {
        declared: 1501,
        total: 1501,
        chunk: 1500,
        intervalMs: 10,
        holdAfterFirstMs: 1000,
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const chunked = await slowUpload(port, { total: 1500, chunk: 300, intervalMs: 20 });
      expect(chunked.status).toBe(503);
      expect(chunked.closedByServer).toBe(true);
      expect((await held).status).toBe(400);
    } finally {
      await close();
    }
  });

  it('408 and a closed connection for bodies slower than bodyTimeout (1 byte/s)', async () => {
    const { port, close, log } = await startReceiver({ bodyTimeout: 1500 });
    try {
      const trickles = Array.from({ length: 20 }, (_, i) =>
        slowUpload(port, {
          ...(i % 2 === 0 ? { declared: 100 } : {}),
          total: 100,
          chunk: 1,
          intervalMs: 1000,
        }),
      );
      const results = await Promise.all(trickles);
      for (const result of results) {
        expect(result.status).toBe(408);
        expect(result.closedByServer).toBe(true);
        expect(result.sent).toBeLessThan(10);
      }
      expect(log.lines.warn.join('\n')).toMatch(/rejected with 408: BodyTimeoutError/);
    } finally {
      await close();
    }
  });

  it('a signed delivery that arrives slowly but within bodyTimeout is handled', async () => {
    const { port, close, webhooks } = await startReceiver({ bodyTimeout: 5000 });
    try {
      const body = new TextEncoder().encode(JSON.stringify({ ref: 'refs/heads/main' }));
      let received = 0;
      webhooks.on('push', () => {
        received++;
      });
      const result = await slowUpload(port, {
        declared: body.length,
        total: body.length,
        chunk: 8,
        intervalMs: 20,
        body,
        signature: independentSign(SECRET, body),
      });
      expect(result.status).toBe(200);
      expect(received).toBe(1);
    } finally {
      await close();
    }
  });

  it('rejects limit options that cannot work', () => {
    const webhooks = new Webhooks({ secret: 's' });
    for (const options of [
      { bodyTimeout: 0 },
      { maxConcurrentRequests: 0 },
      { maxConcurrentRequests: 1.5 },
      { maxPayloadBytes: 2000, maxConcurrentBodyBytes: 1000 },
    ]) {
      expect(() => createNodeMiddleware(webhooks, options)).toThrow(TypeError);
    }
  });
});

describe('request limits (Web)', () => {
  const signedRequest = (body: BodyInit, headers: Record<string, string> = {}) =>
    new Request(`http://receiver.test${PATH}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-provider-event': 'push',
        'x-provider-delivery': 'web-1',
        'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
        ...headers,
      },
      body,
      duplex: 'half',
    } as RequestInit);

  it('408 for a body stream that stalls, and the stream is cancelled', async () => {
    const webhooks = new Webhooks({ secret: SECRET, log: captureLog() });
    const middleware = createWebMiddleware(webhooks, { bodyTimeout: 200 });
    let cancelled = false;
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"ref":'));
      },
      cancel() {
        cancelled = true;
      },
    });
    const response = await middleware(signedRequest(stalled));
    expect(response.status).toBe(408);
    expect((await response.json()).error).toMatch(/^BodyTimeoutError: /);
    expect(cancelled).toBe(true);
  });

  it('429 and 503 with Retry-After', async () => {
    const webhooks = new Webhooks({ secret: SECRET, log: captureLog() });
    const middleware = createWebMiddleware(webhooks, {
      maxConcurrentRequests: 1,
      maxPayloadBytes: 100,
      maxConcurrentBodyBytes: 100,
    });
    let release!: () => void;
    const held = new ReadableStream<Uint8Array>({
      start(controller) {
        release = () => {
          controller.enqueue(new TextEncoder().encode('{}'));
          controller.close();
        };
      },
    });
    const first = middleware(signedRequest(held));
    const busy = await middleware(signedRequest('{}'));
    expect(busy.status).toBe(429);
    expect(busy.headers.get('retry-after')).toBe('5');
    release();
    expect((await first).status).toBe(400);

    const wide = createWebMiddleware(webhooks, {
      maxPayloadBytes: 100,
      maxConcurrentBodyBytes: 100,
    });
    let releaseWide!: () => void;
    const reserved = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(80).fill(0x20));
        releaseWide = () => controller.close();
      },
    });
    const holding = wide(signedRequest(reserved));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const over = await wide(signedRequest(' '.repeat(30)));
    expect(over.status).toBe(503);
    expect(over.headers.get('retry-after')).toBe('5');
    releaseWide();
    expect((await holding).status).toBe(400);
  });
});

describe('memory under a burst of slow near-limit bodies (child process)', () => {
  it('80 slow 24 MiB uploads stay within a bounded RSS, and buffers are freed afterwards', async () => {
    const child = fork(fileURLToPath(new URL('./fixtures/memory-receiver.ts', import.meta.url)), {
      execArgv: ['--expose-gc', '--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    type Message = { type: string; port: number; rss: number; peak: number; arrayBuffers: number };
    const next = (type: string) =>
      new Promise<Message>((resolve, reject) => {
        const onMessage = (message: Message) => {
          if (message.type !== type) return;
          child.off('message', onMessage);
          resolve(message);
        };
        child.on('message', onMessage);
        child.once('exit', (code) => reject(new Error(`receiver exited with ${code}`)));
      });
    try {
      const ready = await next('ready');
      const uploads = Array.from({ length: 80 }, (_, i) =>
        slowUpload(ready.port, {
          ...(i % 2 === 0 ? { declared: 24 * MiB } : {}),
          total: 24 * MiB,
          chunk: 256 * 1024,
          intervalMs: 25,
        }),
      );
      const results = await Promise.all(uploads);
      const statuses = new Map<number | undefined, number>();
      for (const { status } of results) statuses.set(status, (statuses.get(status) ?? 0) + 1);
      child.send('report');
      const after = await next('report');
      const grew = (after.peak - ready.rss) / MiB;
      const kept = (after.arrayBuffers - ready.arrayBuffers) / MiB;
      console.log(
        `memory burst: statuses ${JSON.stringify([...statuses])}, RSS ${Math.round(ready.rss / MiB)} MiB -> peak ${Math.round(after.peak / MiB)} MiB -> ${Math.round(after.rss / MiB)} MiB after GC; array buffers kept ${kept.toFixed(1)} MiB`,
      );
      // Every upload ended: 400 (bad signature, read in full) or 503 (over budget). A client
      // still sending when the server closes may get a reset before it reads the 503.
      for (const result of results) {
        if (result.status === undefined) expect(result.closedByServer).toBe(true);
        else expect([400, 503]).toContain(result.status);
      }
      expect(statuses.get(400)).toBeGreaterThanOrEqual(4);
      // Most are refused (the budget holds about four at a time); a loaded machine turns more
      // of the 503s into resets, so both count.
      expect((statuses.get(503) ?? 0) + (statuses.get(undefined) ?? 0)).toBeGreaterThanOrEqual(40);
      // Unbounded, this burst takes ~1.9 GB; the 100 MiB budget keeps it to a few hundred MB.
      expect(grew).toBeLessThan(600);
      // Memory goes back: no buffer outlives its request, and RSS falls back near the start.
      expect(kept).toBeLessThan(16);
      expect((after.rss - ready.rss) / MiB).toBeLessThan(300);
    } finally {
      child.send('exit');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }, 120_000);
});
