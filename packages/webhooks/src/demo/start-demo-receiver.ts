import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '../methods/verify.js';
import { createNodeMiddleware } from '../middleware/node/create-node-middleware.js';
import { DEFAULT_PATH } from '../middleware/resolve-middleware-options.js';
import { Webhooks } from '../webhooks.js';
import {
  type LandingInfo,
  landingPage,
  notFoundPage,
  type PageResponse,
  wantsHtml,
} from './landing-page.js';

function send(res: ServerResponse, method: string, page: PageResponse): void {
  res.writeHead(page.status, {
    ...page.headers,
    'content-length': Buffer.byteLength(page.body),
  });
  res.end(method === 'HEAD' ? undefined : page.body);
}

export interface DemoReceiver {
  server: Server;
  url: string;
  secret: string;
  /** A ready-to-paste signed curl request for a `ping` delivery. */
  curl: string;
  close(): Promise<void>;
}

/**
 * Starts a demo receiver: a fresh random secret (demo only), a `node:http` server with the
 * webhooks middleware on the default path, handlers that print each delivery, a landing page at
 * `/` (HTML for browsers, JSON otherwise), `/health`, and HTML 404s for browsers.
 *
 * @example
 * ```ts
 * const demo = await startDemoReceiver({ port: 3200 });
 * console.log(demo.url, demo.curl);
 * ```
 */
export async function startDemoReceiver(
  options: {
    port?: number;
    host?: string;
    print?: (line: string) => void;
    /** The demo secret (default: a fresh random one). */
    secret?: string;
  } = {},
): Promise<DemoReceiver> {
  const { port = 3200, host = '127.0.0.1', print = console.log } = options;
  const secret = options.secret ?? randomBytes(24).toString('base64url');
  const webhooks = new Webhooks({
    secret,
    log: {
      // Failures with an event were printed by the onError handler below; print the rest
      // (invalid JSON, say) as one line instead of a stack.
      error: (error: unknown) => {
        if (error instanceof AggregateError && 'event' in error) return;
        print(`delivery failed: ${error instanceof Error ? error.message : String(error)}`);
      },
    },
  });
  webhooks.onAny(({ id, name, payload }) => {
    const action = 'action' in payload ? `.${String(payload.action)}` : '';
    print(`received ${name}${action} (delivery ${id})`);
  });
  webhooks.on('ping', ({ payload }) => print(`ping says: ${payload.zen}`));
  webhooks.onError((error) => print(`rejected delivery ${error.event.id}: ${error.message}`));

  const middleware = createNodeMiddleware(webhooks);
  // Filled in once the port is known.
  const info: LandingInfo = { deliveryUrl: '', healthUrl: '', curl: '' };
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    const method = req.method ?? 'GET';
    const accept = req.headers.accept;
    const reading = method === 'GET' || method === 'HEAD';
    // A browser opening the printed delivery URL gets the landing page, not a JSON 404.
    if (reading && (path === '/' || (path === DEFAULT_PATH && wantsHtml(accept)))) {
      return send(res, method, landingPage(info, accept));
    }
    if (reading && path === '/health') {
      return send(res, method, {
        status: 200,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: '{"status":"ok"}\n',
      });
    }
    if (method === 'POST' && path === CHAIN_PATH) {
      receiveChainDelivery(req, res, secret, print);
      return;
    }
    middleware(req, res).then((handled) => {
      if (!handled) send(res, method, notFoundPage(method, path, info, accept));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const origin = `http://${host}:${address.port}`;
  const url = `${origin}${DEFAULT_PATH}`;
  const payload = JSON.stringify({ zen: 'Design for failure.', hook_id: 1 });
  const signature = await webhooks.sign(payload);
  const curl = [
    `curl -i -X POST '${url}'`,
    `  -H 'content-type: application/json'`,
    `  -H 'x-provider-event: ping'`,
    `  -H 'x-provider-delivery: demo-1'`,
    `  -H 'x-hub-signature-256: ${signature}'`,
    `  --data '${payload}'`,
  ].join(' \\\n');
  Object.assign(info, { deliveryUrl: url, healthUrl: `${origin}/health`, curl });
  return {
    server,
    url,
    secret,
    curl,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Where the chain API's signed deliveries (its Subscriptions API) are received in the demo. */
export const CHAIN_PATH = '/chain-deliveries';

/**
 * A delivery of `@sluice/chain-api`'s Subscriptions API: `dune-webhook-signature` is
 * `sha256=<hex>` over the exact body, checked with `verify` and the shared demo secret.
 */
function receiveChainDelivery(
  req: IncomingMessage,
  res: ServerResponse,
  secret: string,
  print: (line: string) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > 4 * 1024 * 1024) req.destroy();
    else chunks.push(chunk);
  });
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const header = (name: string) => String(req.headers[name] ?? '');
    verify(secret, body, header('dune-webhook-signature'))
      .catch(() => false)
      .then((ok) => {
        if (!ok) {
          print('rejected chain delivery: signature does not verify');
          res.writeHead(401, { 'content-type': 'text/plain' }).end('bad signature\n');
          return;
        }
        let items = 0;
        try {
          const parsed = JSON.parse(body) as Record<string, unknown>;
          items = Object.values(parsed).reduce<number>(
            (n, v) => n + (Array.isArray(v) ? v.length : 0),
            0,
          );
        } catch {
          // A verified body that is not JSON: still acknowledged, counted as no items.
        }
        print(
          `chain delivery ${header('dune-webhook-delivery-id')}: ${header('dune-webhook-type')} on chain ${header('dune-webhook-chain-id')}, ${items} item(s), retry ${header('dune-webhook-retry-index')}, signature verified`,
        );
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      });
  });
}
