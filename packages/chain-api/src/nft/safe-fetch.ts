import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { guardedLookup, literalAddressClass, type Resolver } from '../net/guarded-lookup.js';
import { limitText } from '../text/limit-text.js';
import { SafeFetchError } from './errors.js';

export type { Resolver } from '../net/guarded-lookup.js';

/** Options of {@link createSafeFetcher}. */
export interface SafeFetcherOptions {
  /** Allow loopback/private/link-local targets everywhere (a devnet). Default false. */
  allowPrivateHosts?: boolean;
  /**
   * Hosts exempt from the address check, as `host` or `host:port` (e.g. the devnet's metadata server
   * `127.0.0.1:8545`). Narrower than `allowPrivateHosts`: a redirect elsewhere is still checked.
   */
  allowHosts?: readonly string[];
  /** Largest body accepted, after decompression. Default 2 MiB. */
  maxBytes?: number;
  /** Deadline for the whole exchange: connection, redirects and body. Default 10 s. */
  timeoutMs?: number;
  /** Redirects followed before giving up. Default 5. */
  maxRedirects?: number;
  /** `User-Agent` header. */
  userAgent?: string;
  /** Host name resolver. Default: the system resolver (`dns.lookup`, all addresses). */
  resolve?: Resolver;
}

/** A loaded response: always a 2xx with a body no larger than `maxBytes`. */
export interface SafeResponse {
  /** Final URL after redirects. */
  url: string;
  status: number;
  /** Lower-case media type without parameters, or undefined when absent. */
  contentType: string | undefined;
  body: Buffer;
  redirects: number;
}

/** Per-request options. */
export interface SafeFetchRequest {
  /** `Accept` header. Default `application/json, text/plain;q=0.9, * /*;q=0.1` (without the space). */
  accept?: string;
  /** Which content types are loaded; a refused one fails with `BAD_CONTENT_TYPE` before reading the body. */
  acceptContentType?: (contentType: string | undefined) => boolean;
  signal?: AbortSignal;
}

/** A fetcher bound to its own connection pools; `close()` frees them. */
export interface SafeFetcher {
  fetch(url: string, request?: SafeFetchRequest): Promise<SafeResponse>;
  close(): void;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);
const defaultAccept = 'application/json, text/plain;q=0.9, */*;q=0.1';

/**
 * Creates an HTTP(S) client for untrusted URLs (NFT metadata). Every connection goes to an address
 * this module resolved and checked itself: host names are resolved through a guarded `lookup`
 * handed to the socket, so the checked address is the one connected to (no DNS rebinding window);
 * IP literals are checked before connecting. Loopback, private, link-local, CGNAT, multicast,
 * reserved, IPv6 unique-local/link-local and IPv4-mapped/embedded forms are refused unless
 * `allowPrivateHosts` is set. Redirects are followed by hand, each hop re-checked; the body is
 * streamed and aborted past `maxBytes`; one deadline covers the whole exchange. Nothing fetched is
 * ever executed: callers get bytes.
 *
 * @example
 * const fetcher = createSafeFetcher({ timeoutMs: 5_000 });
 * const { body } = await fetcher.fetch('https://example.com/1.json');
 * fetcher.close();
 */
export function createSafeFetcher(options: SafeFetcherOptions = {}): SafeFetcher {
  const allowPrivate = options.allowPrivateHosts ?? false;
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRedirects = options.maxRedirects ?? 5;
  const resolve: Resolver = options.resolve ?? ((host) => dnsLookup(host, { all: true }));
  const allowHosts = new Set((options.allowHosts ?? []).map((host) => host.toLowerCase()));
  const exempt = (url: URL) =>
    allowPrivate || allowHosts.has(url.host) || allowHosts.has(url.hostname);
  const refuse = (code: 'BLOCKED_ADDRESS' | 'NETWORK', message: string, detail: string) =>
    new SafeFetchError(code, message, detail);
  const strictLookup = guardedLookup(resolve, false, refuse);
  const openLookup = guardedLookup(resolve, true, refuse);
  // No lookup on the agents: each request passes its own (strict unless its host is exempt).
  const agentOptions = { keepAlive: true, maxSockets: 16 };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);
  const userAgent = options.userAgent ?? 'sluice-nft-metadata/1.0';

  async function fetchUrl(input: string, request: SafeFetchRequest = {}): Promise<SafeResponse> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(timeoutSignal), timeoutMs);
    const onAbort = () => controller.abort(request.signal?.reason);
    request.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      let url = parseUrl(input);
      for (let redirects = 0; ; redirects++) {
        checkLiteralHost(url, exempt(url));
        const response = await send(url, request, controller.signal);
        const status = response.statusCode ?? 0;
        if (redirectStatuses.has(status)) {
          response.resume();
          const location = response.headers.location;
          if (!location)
            throw new SafeFetchError('HTTP_STATUS', `HTTP ${status} without Location`, url.href);
          if (redirects >= maxRedirects) {
            throw new SafeFetchError(
              'TOO_MANY_REDIRECTS',
              `more than ${maxRedirects} redirects`,
              url.href,
            );
          }
          url = parseUrl(new URL(location, url).href);
          continue;
        }
        if (status < 200 || status > 299) {
          response.resume();
          throw new SafeFetchError('HTTP_STATUS', `HTTP ${status}`, url.href);
        }
        const contentType = mediaType(response.headers['content-type']);
        if (request.acceptContentType && !request.acceptContentType(contentType)) {
          response.destroy();
          throw new SafeFetchError(
            'BAD_CONTENT_TYPE',
            `refused content type ${contentType ?? '(none)'}`,
            url.href,
          );
        }
        const declared = Number(response.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) {
          response.destroy();
          throw new SafeFetchError(
            'TOO_LARGE',
            `body of ${declared} bytes exceeds ${maxBytes}`,
            url.href,
          );
        }
        const body = await readBody(response, maxBytes, url.href);
        return { url: url.href, status, contentType, body, redirects };
      }
    } catch (error) {
      throw mapError(error, controller.signal, timeoutMs, input);
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
    }
  }

  function send(
    url: URL,
    request: SafeFetchRequest,
    signal: AbortSignal,
  ): Promise<http.IncomingMessage> {
    const isHttps = url.protocol === 'https:';
    return new Promise((resolvePromise, reject) => {
      const req = (isHttps ? https : http).request(url, {
        method: 'GET',
        agent: isHttps ? httpsAgent : httpAgent,
        lookup: exempt(url) ? openLookup : strictLookup,
        signal,
        headers: {
          accept: request.accept ?? defaultAccept,
          'accept-encoding': 'gzip, deflate, br',
          'user-agent': userAgent,
        },
      });
      req.once('response', resolvePromise);
      req.once('error', reject);
      req.end();
    });
  }

  return {
    fetch: fetchUrl,
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

const timeoutSignal = Symbol('timeout');

function parseUrl(input: string): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new SafeFetchError('BAD_URI', 'not a valid URL', limitText(input, 200));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SafeFetchError(
      'UNSUPPORTED_URI',
      `protocol ${url.protocol} is not fetched`,
      limitText(input, 200),
    );
  }
  if (url.username || url.password) {
    throw new SafeFetchError('BAD_URI', 'URLs with credentials are not fetched', url.host);
  }
  return url;
}

function checkLiteralHost(url: URL, allowPrivate: boolean): void {
  if (allowPrivate) return;
  const cls = literalAddressClass(url.hostname);
  if (cls !== null) {
    throw new SafeFetchError(
      'BLOCKED_ADDRESS',
      `refused ${cls} address`,
      url.hostname.replace(/^\[|\]$/g, ''),
    );
  }
}

function mediaType(header: string | undefined): string | undefined {
  const value = header?.split(';', 1)[0]?.trim().toLowerCase();
  return value ? value : undefined;
}

async function readBody(
  response: http.IncomingMessage,
  maxBytes: number,
  url: string,
): Promise<Buffer> {
  const encoding = String(response.headers['content-encoding'] ?? 'identity').toLowerCase();
  let stream: Readable = response;
  if (encoding === 'gzip' || encoding === 'x-gzip') stream = response.pipe(zlib.createGunzip());
  else if (encoding === 'deflate') stream = response.pipe(zlib.createInflate());
  else if (encoding === 'br') stream = response.pipe(zlib.createBrotliDecompress());
  else if (encoding !== 'identity') {
    response.destroy();
    throw new SafeFetchError('BAD_CONTENT_TYPE', `unsupported content encoding ${encoding}`, url);
  }
  // Errors of the raw response (abort, reset) must surface through the decoded stream too.
  if (stream !== response) response.once('error', (error) => stream.destroy(error));
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > maxBytes) {
        throw new SafeFetchError('TOO_LARGE', `body exceeds ${maxBytes} bytes`, url);
      }
      chunks.push(buffer);
    }
  } catch (error) {
    response.destroy();
    stream.destroy();
    if (error instanceof SafeFetchError) throw error;
    if (error instanceof Error && 'code' in error && String(error.code).startsWith('Z_')) {
      throw new SafeFetchError('NETWORK', 'corrupt compressed body', url);
    }
    throw error;
  }
  return Buffer.concat(chunks);
}

function mapError(
  error: unknown,
  signal: AbortSignal,
  timeoutMs: number,
  url: string,
): SafeFetchError {
  if (error instanceof SafeFetchError) return error;
  if (signal.aborted) {
    return signal.reason === timeoutSignal
      ? new SafeFetchError(
          'TIMEOUT',
          `no complete response within ${timeoutMs} ms`,
          limitText(url, 200),
        )
      : new SafeFetchError('NETWORK', 'request aborted', limitText(url, 200));
  }
  const code = error instanceof Error && 'code' in error ? String(error.code) : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return new SafeFetchError(
    'NETWORK',
    code ? `${code}` : 'request failed',
    `${limitText(url, 200)} ${message}`,
  );
}
