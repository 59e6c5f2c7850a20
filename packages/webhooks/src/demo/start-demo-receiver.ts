import { randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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
  options: { port?: number; host?: string; print?: (line: string) => void } = {},
): Promise<DemoReceiver> {
  const { port = 3200, host = '127.0.0.1', print = console.log } = options;
  const secret = randomBytes(24).toString('base64url');
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
