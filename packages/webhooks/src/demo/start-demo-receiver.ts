import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeMiddleware } from '../middleware/node/create-node-middleware.js';
import { DEFAULT_PATH } from '../middleware/resolve-middleware-options.js';
import { Webhooks } from '../webhooks.js';

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
 * webhooks middleware on the default path, and handlers that print each delivery.
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
  const webhooks = new Webhooks({ secret });
  webhooks.onAny(({ id, name, payload }) => {
    const action = 'action' in payload ? `.${String(payload.action)}` : '';
    print(`received ${name}${action} (delivery ${id})`);
  });
  webhooks.on('ping', ({ payload }) => print(`ping says: ${payload.zen}`));
  webhooks.onError((error) => print(`rejected delivery ${error.event.id}: ${error.message}`));

  const middleware = createNodeMiddleware(webhooks);
  const server = createServer((req, res) => {
    middleware(req, res).then((handled) => {
      if (handled) return;
      const body = JSON.stringify({ error: `Not found; deliveries go to POST ${DEFAULT_PATH}` });
      res.writeHead(404, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host}:${address.port}${DEFAULT_PATH}`;
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
  return {
    server,
    url,
    secret,
    curl,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
