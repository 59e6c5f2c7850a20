import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagMatches, strongEtag } from '../http-cache.js';
import type { CachedBody, ResponseCache } from './response-cache.js';
import type { StoreVersion } from './store-version.js';

/** The response cache and the store version it is keyed on; absent: caching is off. */
export interface ResponseCaching {
  cache: ResponseCache;
  version: StoreVersion;
}

/** The per-request fields a cached body leaves open. */
export interface ResponseTimes {
  request_time: string;
  response_time: string;
}

export interface SendCachedOptions {
  /** False when the answer must not be reused (for example it warns that a chain is not ready). */
  cacheable: boolean;
  cacheControl: string;
  /** The body carries `request_time`/`response_time`, filled on every send. */
  requestTime?: Date | undefined;
  /** Strong ETag with `If-None-Match` → 304 (bodies without per-request fields only). */
  etag?: boolean | undefined;
  /** Epoch ms after which the answer may differ even without a store change (clock-relative). */
  expiresAt?: number | undefined;
}

// Random per process, so no string stored on chain (a token name) can collide with a slot.
const nonce = randomBytes(12).toString('hex');
// Both slots have the same length (see toCachedBody).
const REQUEST_SLOT = `sluice-requested-at-${nonce}`;
const RESPONSE_SLOT = `sluice-responded-at-${nonce}`;
const QUOTED_REQUEST_SLOT = Buffer.from(`"${REQUEST_SLOT}"`);
const QUOTED_RESPONSE_SLOT = Buffer.from(`"${RESPONSE_SLOT}"`);
const slotTimes: ResponseTimes = { request_time: REQUEST_SLOT, response_time: RESPONSE_SLOT };

/**
 * Sends the JSON body `build` produces (serialized by the route's response schema), reusing the
 * bytes of an earlier identical request while the store has not changed. Everything that makes
 * a request different (auth, rate limit, parameter checks, readiness) runs before this; the
 * cache key is the full URL with host, since the body can link back to this server.
 *
 * @example
 * return sendCached(request, reply, ctx.caching, { cacheable: true, cacheControl: 'no-cache' },
 *   async () => ({ entries: await load() }));
 */
export async function sendCached(
  request: FastifyRequest,
  reply: FastifyReply,
  caching: ResponseCaching | undefined,
  opts: SendCachedOptions,
  build: (times: ResponseTimes) => Promise<Record<string, unknown>>,
): Promise<FastifyReply> {
  const render = async () => {
    const text = String(reply.serialize(await build(slotTimes)));
    return { body: toCachedBody(text, opts), expiresAt: opts.expiresAt };
  };
  let body: CachedBody;
  const version = caching?.version.current();
  if (!caching) {
    body = (await render()).body;
  } else if (
    version === undefined ||
    !opts.cacheable ||
    /\bno-cache\b/i.test(String(request.headers['cache-control'] ?? ''))
  ) {
    body = (await render()).body;
    reply.header('x-cache', 'bypass');
  } else {
    const key = `${request.protocol}://${request.host}${request.url}`;
    const result = await caching.cache.getOrFill(key, version, render);
    body = result.body;
    reply.header('x-cache', result.outcome === 'shared' ? 'hit' : result.outcome);
  }
  reply.header('cache-control', opts.cacheControl);
  if (body.etag) {
    reply.header('etag', body.etag);
    if (etagMatches(request.headers['if-none-match'], body.etag)) {
      return reply.code(304).send();
    }
  }
  return reply.type('application/json; charset=utf-8').send(joinBody(body, opts.requestTime));
}

function toCachedBody(text: string, opts: SendCachedOptions): CachedBody {
  // Unpooled: a small Buffer.from() is a view into a shared 8 KiB slab, which a cache entry
  // would keep alive whole (and the byte budget would not see).
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  if (!opts.requestTime) {
    return { parts: [bytes], etag: opts.etag ? strongEtag(bytes) : undefined };
  }
  // Byte offsets in the encoded body (one UTF-8 encoding; the parts are views into it).
  const request = bytes.indexOf(QUOTED_REQUEST_SLOT);
  const response = bytes.indexOf(QUOTED_RESPONSE_SLOT);
  if (request < 0 || response < 0) throw new Error('response body lacks its time fields');
  const slotLength = QUOTED_REQUEST_SLOT.length;
  const [first, second] = request < response ? [request, response] : [response, request];
  return {
    parts: [
      bytes.subarray(0, first),
      bytes.subarray(first + slotLength, second),
      bytes.subarray(second + slotLength),
    ],
    responseTimeFirst: response < request,
  };
}

function joinBody(body: CachedBody, requestTime: Date | undefined): Buffer {
  const { parts } = body;
  if (!requestTime || parts.length === 1) return parts[0]!;
  const request = Buffer.from(`"${requestTime.toISOString()}"`);
  const response = Buffer.from(`"${new Date().toISOString()}"`);
  const [first, second] = body.responseTimeFirst ? [response, request] : [request, response];
  return Buffer.concat([parts[0]!, first, parts[1]!, second, parts[2]!]);
}
