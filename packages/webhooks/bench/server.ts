// A receiver in its own process, so the load generator does not share its event loop.
// Usage: tsx bench/server.ts <sluice|octokit|bare|http>; prints the port on stdout.
import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PerformanceObserver } from 'node:perf_hooks';
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
} else if (which === 'bare' || which === 'http') {
  // Floors, written as cheaply as the receiver's job allows. `bare`: read the body, one
  // HMAC-SHA256 over the bytes, a constant-time compare, one JSON.parse, answer 200; no
  // routing, logging, timeout or dispatch. `http`: read the body and answer 200, which is
  // what Node's HTTP server and the socket cost on their own.
  const key = createSecretKey(BENCH_SECRET, 'utf8');
  const check = which === 'bare';
  listener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let status = 200;
      if (check) {
        const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
        const digest = createHmac('sha256', key).update(body).digest();
        const given = Buffer.from(String(req.headers['x-hub-signature-256']).slice(7), 'hex');
        status = given.length === digest.length && timingSafeEqual(given, digest) ? 200 : 400;
        try {
          if (status === 200) JSON.parse(body.toString());
        } catch {
          status = 400;
        }
      }
      res.writeHead(status, ['content-length', '3']).end('ok\n');
    });
  };
} else {
  throw new Error('usage: server.ts <sluice|octokit|bare|http>');
}
// Counters for the parent: server CPU time per request, measured inside the server process.
let requests = 0;
let cpuAtReset = process.cpuUsage();
// Garbage collections since the reset: count and pause time on the main thread.
let gcCount = 0;
let gcMillis = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcCount++;
    gcMillis += entry.duration;
  }
}).observe({ entryTypes: ['gc'] });
const server = createServer((req, res) => {
  if (req.url === '/__stats') {
    const cpu = process.cpuUsage(cpuAtReset);
    res.end(
      JSON.stringify({
        requests,
        cpuMicros: cpu.user + cpu.system,
        userMicros: cpu.user,
        systemMicros: cpu.system,
        gcCount,
        gcMicros: gcMillis * 1000,
      }),
    );
    return;
  }
  if (req.url === '/__reset') {
    requests = 0;
    gcCount = 0;
    gcMillis = 0;
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
