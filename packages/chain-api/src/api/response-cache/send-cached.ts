import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InternalError } from '../../errors/index.js';
import { etagMatches, strongEtag } from '../http-cache.js';
import { isUnfenced } from '../read-fence.js';
import type { Dep } from './cache-deps.js';
import type { LivePrices, PricedTokens, PriceLookup } from './live-prices.js';
import type { CachedBody, CacheFill, LiveBody, ResponseCache } from './response-cache.js';

/** The response cache and what keeps it right; absent: caching is off. */
export interface ResponseCaching {
  cache: ResponseCache;
  /** Whether store changes are being followed; false (listener down): every request bypasses. */
  following(): boolean;
  /**
   * Current prices applied at response time. Absent (global invalidation): prices come with the
   * rows from the store, and any change drops every answer anyway.
   */
  prices?: LivePrices | undefined;
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
  /**
   * What the answer depends on, known before it is built (the wallet or token, the chains); a
   * function is called only when the answer is built (a hit never needs them).
   */
  deps: readonly Dep[] | (() => readonly Dep[]);
}

type Body = Record<string, unknown> | unknown[];

/**
 * An answer built in two steps, so the cache can keep what `load` read and render it again:
 * `load` queries the store; `render` shapes the body, taking current prices from `prices` when
 * given (cached answers), else from the loaded rows (computed from the store, as without cache).
 */
export interface AnswerSource<T> {
  load(): Promise<T>;
  /** Undefined when the rows cannot show these prices (a token gained its first price): reload. */
  render(data: T, times: ResponseTimes, prices: PriceLookup | undefined): Body | undefined;
  /** The (chain, token) prices `render` reads from `prices`. */
  priced?(data: T): PricedTokens;
  /** Dependencies found in the data (collections shown, history read). */
  deps?(data: T): readonly Dep[];
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
 * Sends the JSON body `source` produces (serialized by the route's response schema), reusing the
 * bytes of an earlier identical request until a store change names something it depends on
 * (re-rendering them when only a price it shows moved). Everything that makes a request
 * different (auth, rate limit, parameter checks, readiness) runs before this; the cache key is
 * the full URL with host, since the body can link back to this server. `source` may also be a
 * plain builder, for answers with no prices to apply.
 *
 * @example
 * return sendCached(request, reply, ctx.caching,
 *   { cacheable: true, cacheControl: 'no-cache', deps: walletDeps(wallet, chainIds) },
 *   async () => ({ entries: await load() }));
 */
export async function sendCached<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  caching: ResponseCaching | undefined,
  opts: SendCachedOptions,
  source: AnswerSource<T> | ((times: ResponseTimes) => Promise<Body>),
): Promise<FastifyReply> {
  const answer: AnswerSource<unknown> =
    typeof source === 'function'
      ? { load: () => source(slotTimes), render: (body) => body as Body }
      : (source as AnswerSource<unknown>);
  // Built only when an answer is rendered: a cache hit needs no serializer.
  const fromStore = async () => {
    const body = answer.render(await answer.load(), slotTimes, undefined);
    if (!body) throw new InternalError('an answer rendered from its own rows must exist');
    return bodySerializer(reply, opts)(body);
  };
  let body: CachedBody;
  if (!caching) {
    body = await fromStore();
  } else if (
    !caching.following() ||
    isUnfenced(request) ||
    !opts.cacheable ||
    /\bno-cache\b/i.test(String(request.headers['cache-control'] ?? ''))
  ) {
    body = await fromStore();
    reply.header('x-cache', 'bypass');
  } else {
    const key = `${request.protocol}://${request.host}${request.url}`;
    const result = await caching.cache.getOrFill(key, () =>
      fillFrom(answer, opts, caching.prices, bodySerializer(reply, opts)),
    );
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

/**
 * The route's JSON serializer for its 200 answer, holding neither the reply nor the options: a
 * live entry keeps it to render again, and the reply would keep the whole request (its socket,
 * headers and logger) alive for as long as the entry lives.
 */
function bodySerializer(reply: FastifyReply, opts: SendCachedOptions): (body: Body) => CachedBody {
  const compiled: unknown = reply.getSerializationFunction(String(reply.statusCode));
  // A route without a response schema is serialized as Fastify would: JSON.stringify.
  const fn = typeof compiled === 'function' ? (compiled as (body: Body) => string) : JSON.stringify;
  const shape = { requestTime: opts.requestTime !== undefined, etag: opts.etag === true };
  return (body) => toCachedBody(fn(body), shape);
}

/** A cache fill: the data loaded once, rendered with live prices when it shows any. */
async function fillFrom<T>(
  source: AnswerSource<T>,
  opts: SendCachedOptions,
  prices: LivePrices | undefined,
  serialize: (body: Body) => CachedBody,
): Promise<CacheFill> {
  const data = await source.load();
  const known = typeof opts.deps === 'function' ? opts.deps() : opts.deps;
  const deps = source.deps ? [...known, ...source.deps(data)] : known;
  const priced = prices && source.priced?.(data);
  if (prices && priced && priced.size > 0) {
    const live = new LiveRender(prices, priced, (lookup) => {
      const body = source.render(data, slotTimes, lookup);
      return body && serialize(body);
    });
    const body = await live.refresh();
    if (body) return { body, expiresAt: opts.expiresAt, deps, live };
    // Prices moved past what the rows were loaded for: answer from the rows, keep nothing.
    return { body: serialize(source.render(data, slotTimes, undefined)!), deps, keep: false };
  }
  const body = source.render(data, slotTimes, undefined);
  if (!body) throw new InternalError('an answer rendered from its own rows must exist');
  return { body: serialize(body), expiresAt: opts.expiresAt, deps };
}

/** A cached body that follows the live prices it shows. */
class LiveRender implements LiveBody {
  #tick = -1;

  constructor(
    private readonly prices: LivePrices,
    private readonly tokens: PricedTokens,
    private readonly render: (lookup: PriceLookup) => CachedBody | undefined,
  ) {}

  outdated(): boolean {
    return this.prices.changedSince(this.tokens, this.#tick);
  }

  async refresh(): Promise<CachedBody | undefined> {
    for (;;) {
      await this.prices.ensure(this.tokens);
      // Synchronous from here: no change can land between the check and the render.
      if (!this.prices.loaded(this.tokens)) continue;
      const tick = this.prices.tick;
      const body = this.render(this.prices.lookup);
      this.#tick = tick;
      return body;
    }
  }
}

function toCachedBody(text: string, opts: { requestTime: boolean; etag: boolean }): CachedBody {
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
  if (request < 0 || response < 0) throw new InternalError('response body lacks its time fields');
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

/** Bytes of a quoted ISO time (`"2026-11-29T10:00:00.000Z"`). */
const QUOTED_TIME_BYTES = 26;

/** The body with this request's times in its slots: one buffer, written in place. */
function joinBody(body: CachedBody, requestTime: Date | undefined): Buffer {
  const { parts } = body;
  if (!requestTime || parts.length === 1) return parts[0]!;
  const request = `"${requestTime.toISOString()}"`;
  const response = `"${new Date().toISOString()}"`;
  const [first, second] = body.responseTimeFirst ? [response, request] : [request, response];
  // Years past 9999 (or before 0) have longer ISO forms: the general path.
  if (first.length !== QUOTED_TIME_BYTES || second.length !== QUOTED_TIME_BYTES) {
    return Buffer.concat([
      parts[0]!,
      Buffer.from(first),
      parts[1]!,
      Buffer.from(second),
      parts[2]!,
    ]);
  }
  const [a, b, c] = parts as [Buffer, Buffer, Buffer];
  const out = Buffer.allocUnsafe(a.length + b.length + c.length + 2 * QUOTED_TIME_BYTES);
  let at = a.copy(out, 0);
  at += out.write(first, at, 'latin1');
  at += b.copy(out, at);
  at += out.write(second, at, 'latin1');
  c.copy(out, at);
  return out;
}
