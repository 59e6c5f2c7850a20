import { BodyAlreadyParsedError, PayloadTooLargeError, RequestBodyError } from '../../errors.js';

/**
 * The exact body bytes of a Web `Request`, read chunk by chunk with a running size check:
 * throws `PayloadTooLargeError` (413) as soon as the declared or received size passes
 * `maxPayloadBytes` (the stream is cancelled, not buffered) and `BodyAlreadyParsedError` (500)
 * when the body was already used.
 *
 * @example
 * ```ts
 * const bytes = await readWebBody(request, 25 * 1024 * 1024);
 * ```
 */
export async function readWebBody(request: Request, maxPayloadBytes: number): Promise<Uint8Array> {
  if (request.bodyUsed) {
    throw new BodyAlreadyParsedError({
      details:
        'request.bodyUsed is true, so the signature cannot be checked; pass the request to the webhooks middleware before reading its body, or pass request.clone()',
    });
  }
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxPayloadBytes) {
    throw new PayloadTooLargeError(maxPayloadBytes);
  }
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > maxPayloadBytes) {
        reader.cancel().catch(() => {});
        throw new PayloadTooLargeError(maxPayloadBytes);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof PayloadTooLargeError) throw error;
    throw new RequestBodyError({
      details: error instanceof Error ? error.message : String(error),
      cause: error,
    });
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}
