import type { IncomingMessage } from 'node:http';
import type { BodyBudget } from './relay-memory.js';

export type BoundedBody =
  | { ok: true; text: string }
  | { ok: false; status: 413 | 400 | 503; reason: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a request body of at most `maxBytes` as strict UTF-8. A declared `Content-Length` over
 * the limit is refused before reading; a body that grows past it stops being buffered. Each
 * chunk is taken from the relay's byte budget as it arrives (never as declared) and given back
 * once the read ends; a chunk that does not fit stops the read with a 503.
 *
 * @example
 * ```ts
 * const body = await readBoundedBody(req, 25 * 1024 * 1024, memory.bodies);
 * if (!body.ok) return reply(res, body.status, body.reason);
 * ```
 */
export function readBoundedBody(
  request: IncomingMessage,
  maxBytes: number,
  budget: BodyBudget,
): Promise<BoundedBody> {
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
      budget.give(size);
      chunks.length = 0;
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      if (size + chunk.length > maxBytes) {
        finish({ ok: false, status: 413, reason: `Body larger than ${maxBytes} bytes` });
        return;
      }
      if (!budget.take(chunk.length)) {
        finish({ ok: false, status: 503, reason: 'Relay busy: too many bytes in flight' });
        return;
      }
      size += chunk.length;
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.on('end', () => {
      try {
        finish({ ok: true, text: utf8.decode(Buffer.concat(chunks, size)) });
      } catch {
        finish({ ok: false, status: 400, reason: 'Body is not UTF-8 text' });
      }
    });
    request.on('error', () => finish({ ok: false, status: 400, reason: 'Body could not be read' }));
    request.on('aborted', () => finish({ ok: false, status: 400, reason: 'Request aborted' }));
  });
}
