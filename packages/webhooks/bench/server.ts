// A receiver in its own process, so the load generator does not share its event loop.
// Usage: tsx bench/server.ts <sluice|octokit>; prints the port on stdout.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as octokit from '@octokit/webhooks';

// The built package (what users run), like the peer's published bundle.
const sluice: typeof import('../src/index.js') = await import(
  new URL('../dist/index.js', import.meta.url).href
);

const which = process.argv[2];
// The parent generates a random secret per run and passes it in the environment.
const BENCH_SECRET = process.env.BENCH_SECRET;
if (!BENCH_SECRET) throw new Error('BENCH_SECRET must be set');
let listener: (req: IncomingMessage, res: ServerResponse) => void;
if (which === 'sluice') {
  const webhooks = new sluice.Webhooks({ secret: BENCH_SECRET });
  webhooks.on('push', () => {});
  const middleware = sluice.createNodeMiddleware(webhooks);
  listener = (req, res) => {
    middleware(req, res);
  };
} else if (which === 'octokit') {
  const webhooks = new octokit.Webhooks({ secret: BENCH_SECRET });
  webhooks.on('push', () => {});
  const middleware = octokit.createNodeMiddleware(webhooks, { path: '/api/hosting/webhooks' });
  listener = (req, res) => {
    middleware(req, res);
  };
} else {
  throw new Error('usage: server.ts <sluice|octokit>');
}
// Counters for the parent: server CPU time per request, measured inside the server process.
let requests = 0;
let cpuAtReset = process.cpuUsage();
const server = createServer((req, res) => {
  if (req.url === '/__stats') {
    const cpu = process.cpuUsage(cpuAtReset);
    res.end(JSON.stringify({ requests, cpuMicros: cpu.user + cpu.system }));
    return;
  }
  if (req.url === '/__reset') {
    requests = 0;
    cpuAtReset = process.cpuUsage();
    res.end('{}');
    return;
  }
  requests++;
  listener(req, res);
});
server.listen(0, '127.0.0.1', () => {
  console.log((server.address() as AddressInfo).port);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
