import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { guardedLookup, literalAddressClass, type Resolver } from '../net/guarded-lookup.js';
import { limitText } from '../text/limit-text.js';
import { DeliveryError } from './errors.js';

/** Options of {@link createWebhookSender}. */
export interface WebhookSenderOptions {
  /** Hosts (`host` or `host:port`) exempt from the private-address check. */
  allowHosts?: readonly string[];
  /** Deadline of one attempt: connect, send, status and the (capped) answer. Default 10 s. */
  timeoutMs?: number;
  /** Bytes of the receiver's answer read (the rest is discarded). Default 4 KiB. */
  maxResponseBytes?: number;
  /** Connections open at once to one receiving host:port. Default 8. */
  maxSocketsPerHost?: number;
  /** Host name resolver (tests inject one). Default: the system resolver. */
  resolve?: Resolver;
}

/** A receiver's 2xx answer. */
export interface SendResult {
  status: number;
}

/** POSTs delivery bodies; `close()` frees its connection pools. */
export interface WebhookSender {
  post(url: string, headers: Record<string, string>, body: Buffer): Promise<SendResult>;
  close(): void;
}

const timedOut = Symbol('timeout');
/** A reused connection the receiver had closed: the request is sent again, once. */
const staleSocket = new Error('stale kept-alive connection');
const STALE = new Set(['ECONNRESET', 'EPIPE']);

/**
 * An HTTP(S) client for receivers' URLs. The SSRF check runs at connect time: host names are
 * resolved by a guarded `lookup` handed to the socket, so the address checked is the one connected
 * to (a receiver whose DNS changed to a private address after its webhook was created is refused);
 * IP literals are checked before connecting; `allowHosts` exempts named hosts. Redirects are not
 * followed (a 3xx is a failed attempt). Connections per host:port are bounded by the agents'
 * `maxSockets` (keep-alive), and only the first `maxResponseBytes` of an answer are read.
 *
 * @example
 * const sender = createWebhookSender({ allowHosts: ['127.0.0.1:8080'] });
 * await sender.post('http://127.0.0.1:8080/hook', { 'content-type': 'application/json' }, body);
 */
export function createWebhookSender(options: WebhookSenderOptions = {}): WebhookSender {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxResponseBytes = options.maxResponseBytes ?? 4096;
  const allowHosts = new Set((options.allowHosts ?? []).map((h) => h.toLowerCase()));
  const resolve: Resolver = options.resolve ?? ((host) => dnsLookup(host, { all: true }));
  const refuse = (code: 'BLOCKED_ADDRESS' | 'NETWORK', message: string, detail: string) =>
    new DeliveryError(
      code === 'BLOCKED_ADDRESS' ? 'WEBHOOK_BLOCKED_ADDRESS' : 'WEBHOOK_NETWORK',
      `${message}: ${limitText(detail, 200)}`,
    );
  const strictLookup = guardedLookup(resolve, false, refuse);
  const openLookup = guardedLookup(resolve, true, refuse);
  const agentOptions = { keepAlive: true, maxSockets: options.maxSocketsPerHost ?? 8 };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);

  function target(input: string): { url: URL; exempt: boolean } {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw new DeliveryError('WEBHOOK_BAD_URL', 'not a valid URL');
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
      throw new DeliveryError('WEBHOOK_BAD_URL', 'only http(s) URLs without credentials');
    }
    const exempt =
      allowHosts.has(url.host.toLowerCase()) || allowHosts.has(url.hostname.toLowerCase());
    const cls = exempt ? null : literalAddressClass(url.hostname);
    if (cls !== null) {
      throw new DeliveryError('WEBHOOK_BLOCKED_ADDRESS', `refused ${cls} address: ${url.hostname}`);
    }
    return { url, exempt };
  }

  /** One request; `stale` when a kept-alive socket turned out closed before any answer. */
  function send(
    url: URL,
    exempt: boolean,
    headers: Record<string, string>,
    body: Buffer,
    signal: AbortSignal,
  ): Promise<SendResult> {
    const isHttps = url.protocol === 'https:';
    return new Promise<SendResult>((resolvePromise, reject) => {
      const req = (isHttps ? https : http).request(url, {
        method: 'POST',
        agent: isHttps ? httpsAgent : httpAgent,
        lookup: exempt ? openLookup : strictLookup,
        signal,
        headers: { ...headers, 'content-length': String(body.length) },
      });
      let answered = false;
      req.once('error', (error: Error & { code?: string }) => {
        // The receiver closed an idle kept-alive connection as it was reused: nothing was read,
        // so the same request goes out once more (on a fresh connection), not as a failed attempt.
        if (!answered && req.reusedSocket && !signal.aborted && STALE.has(error.code ?? '')) {
          reject(staleSocket);
        } else reject(error);
      });
      req.once('response', (response) => {
        answered = true;
        const status = response.statusCode ?? 0;
        const done = () => {
          if (status >= 200 && status <= 299) resolvePromise({ status });
          else reject(new DeliveryError('WEBHOOK_HTTP_STATUS', `HTTP ${status}`, status));
        };
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // Past the cap the answer is not worth the connection: the status decides, drop the rest.
          if (read > maxResponseBytes) {
            done();
            response.destroy();
          }
        });
        response.once('end', done);
        response.once('close', done);
        response.once('error', done);
      });
      req.end(body);
    });
  }

  async function post(
    input: string,
    headers: Record<string, string>,
    body: Buffer,
  ): Promise<SendResult> {
    const { url, exempt } = target(input);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(timedOut), timeoutMs);
    return send(url, exempt, headers, body, controller.signal)
      .catch((error: unknown) => {
        if (error !== staleSocket) throw error;
        return send(url, exempt, headers, body, controller.signal);
      })
      .catch((error: unknown) => {
        if (error instanceof DeliveryError) throw error;
        if (controller.signal.aborted) {
          throw new DeliveryError('WEBHOOK_TIMEOUT', `no answer within ${timeoutMs} ms`);
        }
        const code =
          error instanceof Error && 'code' in error ? String(error.code) : 'request failed';
        throw new DeliveryError('WEBHOOK_NETWORK', `${code} (${url.host})`);
      })
      .finally(() => clearTimeout(timer));
  }

  return {
    post,
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
