import type { IncomingMessage } from 'node:http';
import { BodyAlreadyParsedError, PayloadTooLargeError, RequestBodyError } from '../../errors.js';
import type { BodyCallback } from '../types.js';

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
 * running size check. Fails with `PayloadTooLargeError` (413) as soon as the declared or
 * received size passes `maxPayloadBytes` and with `BodyAlreadyParsedError` (500) at once when a
 * body parser consumed the stream without keeping the raw bytes. Calls `done` exactly once.
 *
 * @example
 * ```ts
 * readNodeBody(req, 25 * 1024 * 1024, (error, bytes) => { ... });
 * ```
 */
export function readNodeBody(
  request: NodeRequestWithBody,
  maxPayloadBytes: number,
  done: BodyCallback,
): void {
  const { rawBody, body } = request;
  const given =
    rawBody instanceof Uint8Array || typeof rawBody === 'string'
      ? rawBody
      : body instanceof Uint8Array || typeof body === 'string'
        ? body
        : undefined;
  if (given !== undefined) {
    const size = typeof given === 'string' ? Buffer.byteLength(given) : given.length;
    if (size > maxPayloadBytes) done(new PayloadTooLargeError(maxPayloadBytes));
    else done(undefined, given);
    return;
  }
  // body-parser marks consumed requests with `_body`; `readableEnded` covers every other reader.
  if (request.readableEnded || (request as { _body?: unknown })._body === true) {
    const what =
      body !== undefined && body !== null && typeof body === 'object'
        ? 'req.body is an already parsed object'
        : 'the request stream was already read';
    done(
      new BodyAlreadyParsedError({
        details: `${what}, so the signature cannot be checked; ${RAW_BODY_HELP}`,
      }),
    );
    return;
  }
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxPayloadBytes) {
    done(new PayloadTooLargeError(maxPayloadBytes));
    return;
  }
  readStream(request, maxPayloadBytes, done);
}

/**
 * Collects the request stream. Chunks are kept as the HTTP parser hands them over (each is
 * already a copy) and joined once at the end; a body that arrives in one chunk is not copied.
 */
function readStream(request: IncomingMessage, maxPayloadBytes: number, done: BodyCallback): void {
  let first: Buffer | undefined;
  let rest: Buffer[] | undefined;
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
      first = undefined;
      rest = undefined;
      done(new PayloadTooLargeError(maxPayloadBytes));
      return;
    }
    if (first === undefined) first = chunk;
    else if (rest === undefined) rest = [chunk];
    else rest.push(chunk);
  };
  const onEnd = (): void => {
    cleanup();
    if (first === undefined) done(undefined, Buffer.alloc(0));
    else if (rest === undefined) done(undefined, first);
    else done(undefined, Buffer.concat([first, ...rest], size));
  };
  const onError = (error: Error): void => {
    cleanup();
    done(new RequestBodyError({ details: error.message, cause: error }));
  };
  const onClose = (): void => {
    cleanup();
    done(new RequestBodyError({ details: 'the client closed the connection' }));
  };
  request.on('data', onData);
  request.on('end', onEnd);
  request.on('error', onError);
  request.on('close', onClose);
}
