import type { IncomingMessage } from 'node:http';
import { BodyAlreadyParsedError, PayloadTooLargeError, RequestBodyError } from '../../errors.js';

/** Fields frameworks add to Node requests. */
export interface NodeRequestWithBody extends IncomingMessage {
  body?: unknown;
  rawBody?: unknown;
}

const RAW_BODY_HELP =
  'mount the webhooks middleware before any body parser, or keep the raw bytes in req.rawBody ' +
  '(Express: express.json({ verify: (req, _res, buf) => { req.rawBody = buf } }) or ' +
  "express.raw({ type: 'application/json' }))";

/**
 * The exact body bytes of a Node request: `req.rawBody` (Buffer/Uint8Array) or a string or
 * bytes `req.body` left by a framework or serverless platform, else the stream, read with a
 * running size check. Throws `PayloadTooLargeError` (413) as soon as the declared or received
 * size passes `maxPayloadBytes` and `BodyAlreadyParsedError` (500) at once when a body parser
 * consumed the stream without keeping the raw bytes.
 *
 * @example
 * ```ts
 * const bytes = await readNodeBody(req, 25 * 1024 * 1024);
 * ```
 */
export function readNodeBody(
  request: NodeRequestWithBody,
  maxPayloadBytes: number,
): Promise<Uint8Array | string> {
  const { rawBody, body } = request;
  const given =
    rawBody instanceof Uint8Array || typeof rawBody === 'string'
      ? rawBody
      : body instanceof Uint8Array || typeof body === 'string'
        ? body
        : undefined;
  if (given !== undefined) {
    const size = typeof given === 'string' ? Buffer.byteLength(given) : given.length;
    if (size > maxPayloadBytes) return Promise.reject(new PayloadTooLargeError(maxPayloadBytes));
    return Promise.resolve(given);
  }
  // body-parser marks consumed requests with `_body`; `readableEnded` covers every other reader.
  if (request.readableEnded || (request as { _body?: unknown })._body === true) {
    const what =
      body !== undefined && body !== null && typeof body === 'object'
        ? 'req.body is an already parsed object'
        : 'the request stream was already read';
    return Promise.reject(
      new BodyAlreadyParsedError({
        details: `${what}, so the signature cannot be checked; ${RAW_BODY_HELP}`,
      }),
    );
  }
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxPayloadBytes) {
    return Promise.reject(new PayloadTooLargeError(maxPayloadBytes));
  }
  return readStream(request, maxPayloadBytes);
}

function readStream(request: IncomingMessage, maxPayloadBytes: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      request.removeListener('data', onData);
      request.removeListener('end', onEnd);
      request.removeListener('error', onError);
      request.removeListener('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxPayloadBytes) {
        cleanup();
        // Stop reading; the 413 response closes the connection instead of draining the rest.
        request.pause();
        chunks.length = 0;
        reject(new PayloadTooLargeError(maxPayloadBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(new RequestBodyError({ details: error.message, cause: error }));
    };
    const onClose = (): void => {
      cleanup();
      reject(new RequestBodyError({ details: 'the client closed the connection' }));
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('close', onClose);
  });
}
