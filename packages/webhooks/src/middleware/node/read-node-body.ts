import type { IncomingMessage } from 'node:http';
import { BodyAlreadyParsedError, PayloadTooLargeError, RequestBodyError } from '../../errors.js';
import type { AbortBodyRead, BodyAllowance, BodyCallback } from '../types.js';

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
 * received size passes `maxPayloadBytes`, with the allowance's error (503) when the middleware's
 * shared byte budget is spent, and with `BodyAlreadyParsedError` (500) at once when a body
 * parser consumed the stream without keeping the raw bytes. Calls `done` exactly once, unless
 * the returned function aborts the read first (the middleware's body deadline).
 *
 * @example
 * ```ts
 * const abort = readNodeBody(req, admission, (error, bytes) => respond(error, bytes));
 * ```
 */
export function readNodeBody(
  request: NodeRequestWithBody,
  allowance: BodyAllowance,
  done: BodyCallback,
): AbortBodyRead {
  const { maxPayloadBytes } = allowance;
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
    return noop;
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
    return noop;
  }
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxPayloadBytes) {
    done(new PayloadTooLargeError(maxPayloadBytes));
    return noop;
  }
  return readStream(request, allowance, done);
}

function noop(): void {}

/**
 * Collects the request stream. Chunks are kept as the HTTP parser hands them over (each is
 * already a copy) and joined once at the end; a body that arrives in one chunk is not copied.
 * Chunks are dropped as soon as the read fails or is aborted, so nothing large outlives it.
 */
function readStream(
  request: IncomingMessage,
  allowance: BodyAllowance,
  done: BodyCallback,
): AbortBodyRead {
  const { maxPayloadBytes } = allowance;
  let first: Buffer | undefined;
  let rest: Buffer[] | undefined;
  let size = 0;
  const cleanup = (): void => {
    request.removeListener('data', onData);
    request.removeListener('end', onEnd);
    request.removeListener('error', onError);
    request.removeListener('close', onClose);
    first = undefined;
    rest = undefined;
  };
  const stop = (error: Error): void => {
    cleanup();
    // Stop reading; the response closes the connection instead of draining the rest.
    request.pause();
    done(error);
  };
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > maxPayloadBytes) stop(new PayloadTooLargeError(maxPayloadBytes));
    else if (!allowance.take(chunk.length)) stop(allowance.exceeded());
    else if (first === undefined) first = chunk;
    else if (rest === undefined) rest = [chunk];
    else rest.push(chunk);
  };
  const onEnd = (): void => {
    const head = first;
    const tail = rest;
    cleanup();
    if (head === undefined) done(undefined, Buffer.alloc(0));
    else if (tail === undefined) done(undefined, head);
    else done(undefined, Buffer.concat([head, ...tail], size));
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
  return () => {
    cleanup();
    request.pause();
  };
}
