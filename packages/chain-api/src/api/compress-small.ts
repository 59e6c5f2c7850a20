import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

type Encoding = 'br' | 'gzip' | 'deflate';
const preference: readonly Encoding[] = ['br', 'gzip', 'deflate'];
const compressible = /^(application\/(json|problem\+json)|text\/)/i;

/**
 * The client's preferred encoding we support (highest q; br, gzip, deflate on ties; `*` stands
 * for br), or undefined for none, identity or no header.
 *
 * @example
 * acceptedEncoding('gzip;q=0.8, br'); // 'br'
 */
export function acceptedEncoding(header: string | undefined): Encoding | undefined {
  if (!header) return undefined;
  let best: Encoding | undefined;
  let bestQ = 0;
  for (const part of header.split(',')) {
    const [rawName = '', ...params] = part.split(';');
    const name = rawName.trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const [k, v] = p.split('=');
      if (k?.trim().toLowerCase() === 'q') q = Number(v);
    }
    if (!(q > 0)) continue;
    const enc = (name === '*' ? 'br' : name) as Encoding;
    if (!preference.includes(enc)) continue;
    if (q > bestQ || (q === bestQ && best && preference.indexOf(enc) < preference.indexOf(best))) {
      best = enc;
      bestQ = q;
    }
  }
  return best;
}

/**
 * Compresses small string and Buffer answers in place, synchronously, before `@fastify/compress`
 * (which then leaves them alone) streams them through zlib's thread pool: for the few-KiB bodies
 * most requests return, that round trip cost several times the compression itself (cached
 * balances: 1,275 req/s compressed by the plugin against 6,095 uncompressed). Larger bodies
 * (`maxBytes`) still stream, so the event loop never holds a big compression.
 *
 * @example
 * compressSmallAnswers(app, { threshold: 1024, maxBytes: 64 * 1024, brotliQuality: 4 });
 */
export function compressSmallAnswers(
  app: FastifyInstance,
  opts: { threshold: number; maxBytes: number; brotliQuality: number },
): void {
  // Callback style: most answers pass through untouched, without a promise each.
  app.addHook('onSend', (request, reply, payload, done) => {
    const encoding = encodingFor(request, reply, payload, opts);
    if (!encoding) return done(null, payload);
    const body = payload as string | Buffer;
    const size = Buffer.byteLength(body);
    const compressed =
      encoding === 'br'
        ? brotliCompressSync(body, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: opts.brotliQuality,
              [constants.BROTLI_PARAM_SIZE_HINT]: size,
              // A window just over the body: brotli allocates it per call (4 MiB by default).
              [constants.BROTLI_PARAM_LGWIN]: Math.max(
                constants.BROTLI_MIN_WINDOW_BITS,
                Math.ceil(Math.log2(size + 16)),
              ),
            },
          })
        : encoding === 'gzip'
          ? gzipSync(body)
          : deflateSync(body);
    const vary = reply.getHeader('vary');
    if (!vary) reply.header('vary', 'accept-encoding');
    else if (!/accept-encoding/i.test(String(vary)))
      reply.header('vary', `${vary}, accept-encoding`);
    reply.header('content-encoding', encoding);
    reply.removeHeader('content-length');
    done(null, compressed);
  });
}

/** The encoding to compress `payload` with here, or undefined to send it as it is. */
function encodingFor(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  opts: { threshold: number; maxBytes: number },
): Encoding | undefined {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return undefined;
  const size = Buffer.byteLength(payload);
  if (size < opts.threshold || size > opts.maxBytes) return undefined;
  if (request.headers['x-no-compression'] !== undefined) return undefined;
  if (reply.getHeader('content-encoding')) return undefined;
  const type = String(reply.getHeader('content-type') ?? 'application/json');
  if (!compressible.test(type)) return undefined;
  return acceptedEncoding(request.headers['accept-encoding']);
}
