import { request as httpRequest } from 'node:http';
import type { Readable } from 'node:stream';
import type { Received, SentRequest } from './middleware-matrix.js';

/**
 * A raw node:http request (no automatic content type, unlike fetch), returning status, headers,
 * body text and the number of body bytes received. A Readable body is streamed (chunked).
 */
export function sendHttp(
  port: number,
  req: Omit<SentRequest, 'body'> & { body?: string | Uint8Array | Readable },
): Promise<Received> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...req.headers };
    const { body } = req;
    if (typeof body === 'string' || body instanceof Uint8Array) {
      headers['content-length'] = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    }
    const outgoing = httpRequest(
      // A fresh connection each time: a server that closed one must not fail the next request.
      {
        host: '127.0.0.1',
        port,
        method: req.method ?? 'POST',
        path: req.path ?? '/',
        headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const buffer = Buffer.concat(chunks);
          const responseHeaders = new Headers();
          for (const [key, value] of Object.entries(res.headers)) {
            if (value !== undefined) responseHeaders.set(key, String(value));
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: responseHeaders,
            text: buffer.toString('utf8'),
            bytes: buffer.length,
          });
        });
        res.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    if (body === undefined) outgoing.end();
    else if (typeof body === 'string' || body instanceof Uint8Array) outgoing.end(body);
    else body.pipe(outgoing);
  });
}
