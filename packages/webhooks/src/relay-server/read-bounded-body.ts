import type { IncomingMessage } from 'node:http';

export type BoundedBody =
  | { ok: true; text: string }
  | { ok: false; status: 413 | 400; reason: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a request body of at most `maxBytes` as strict UTF-8. A declared `Content-Length` over
 * the limit is refused before reading; a body that grows past it stops being buffered.
 *
 * @example
 * ```ts
 * const body = await readBoundedBody(req, 25 * 1024 * 1024);
 * if (!body.ok) return reply(res, body.status, body.reason);
 * ```
 */
export function readBoundedBody(request: IncomingMessage, maxBytes: number): Promise<BoundedBody> {
  return new Promise((resolve) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      resolve({ ok: false, status: 413, reason: `Body larger than ${maxBytes} bytes` });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: BoundedBody): void => {
      if (done) return;
      done = true;
      request.removeListener('data', onData);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        finish({ ok: false, status: 413, reason: `Body larger than ${maxBytes} bytes` });
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.on('end', () => {
      try {
        finish({ ok: true, text: utf8.decode(Buffer.concat(chunks)) });
      } catch {
        finish({ ok: false, status: 400, reason: 'Body is not UTF-8 text' });
      }
    });
    request.on('error', () => finish({ ok: false, status: 400, reason: 'Body could not be read' }));
    request.on('aborted', () => finish({ ok: false, status: 400, reason: 'Request aborted' }));
  });
}
