import { BodyAlreadyParsedError, PayloadTooLargeError, RequestBodyError } from '../../errors.js';
import type { AbortBodyRead, BodyAllowance, BodyCallback } from '../types.js';

/**
 * Reads the exact body bytes of a Web `Request` chunk by chunk with a running size check and
 * calls `done` once: `PayloadTooLargeError` (413) as soon as the declared or received size
 * passes `maxPayloadBytes`, the allowance's error (503) when the middleware's shared byte budget
 * is spent (the stream is cancelled, not buffered), `BodyAlreadyParsedError` (500) when the body
 * was already used. The returned function cancels a read still running (the body deadline);
 * `done` is then not called.
 *
 * @example
 * ```ts
 * const abort = readWebBody(request, admission, (error, bytes) => respond(error, bytes));
 * ```
 */
export function readWebBody(
  request: Request,
  allowance: BodyAllowance,
  done: BodyCallback,
): AbortBodyRead {
  const { maxPayloadBytes } = allowance;
  if (request.bodyUsed) {
    done(
      new BodyAlreadyParsedError({
        details:
          'request.bodyUsed is true, so the signature cannot be checked; pass the request to the webhooks middleware before reading its body, or pass request.clone()',
      }),
    );
    return noop;
  }
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxPayloadBytes) {
    done(new PayloadTooLargeError(maxPayloadBytes));
    return noop;
  }
  if (request.body === null) {
    done(undefined, new Uint8Array(0));
    return noop;
  }
  const reader = request.body.getReader();
  let aborted = false;
  let chunks: Uint8Array[] | undefined = [];
  let size = 0;
  const fail = (error: unknown): void => {
    chunks = undefined;
    reader.cancel().catch(noop);
    if (!aborted) done(error);
  };
  const pump = (): void => {
    reader.read().then(({ done: end, value }) => {
      if (aborted || chunks === undefined) return;
      if (end) {
        const body = join(chunks, size);
        chunks = undefined;
        done(undefined, body);
        return;
      }
      size += value.length;
      if (size > maxPayloadBytes) fail(new PayloadTooLargeError(maxPayloadBytes));
      else if (!allowance.take(value.length)) fail(allowance.exceeded());
      else {
        chunks.push(value);
        pump();
      }
    }, onReadError);
  };
  const onReadError = (error: unknown): void => {
    if (aborted || chunks === undefined) return;
    fail(
      new RequestBodyError({
        details: error instanceof Error ? error.message : String(error),
        cause: error,
      }),
    );
  };
  pump();
  return () => {
    aborted = true;
    chunks = undefined;
    reader.cancel().catch(noop);
  };
}

function join(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

function noop(): void {}
