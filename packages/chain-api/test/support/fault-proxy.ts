import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What the proxy does with one request. */
export type Fault =
  | 'pass'
  | 'timeout' // hold the request open (the client's timeout fires)
  | 'status429'
  | 'status500'
  | 'status503'
  | 'garbage' // 200 with a non-JSON body
  | 'truncate' // 200 with the upstream JSON cut in half
  | 'drop' // destroy the connection without answering
  | 'partial' // forward, then drop the last item of a batch answer
  | 'rpcError' // 200 with a retryable JSON-RPC error (-32005) for every item
  | 'serverError' // 200 with a non-retryable -32000 "server error" for every item
  | 'methodNotFound' // 200 with -32601 "method not found" for every item
  | 'traceErrors'; // forward, then every entry of a list result becomes geth's {txHash, error}

export interface FaultProxy {
  url: string;
  /** Requests seen, and how many of each fault were injected. */
  stats: { requests: number; faults: Record<string, number> };
  /** Replaces the fault policy. */
  setPolicy(policy: (n: number, body: string) => Fault): void;
  /** Stops the proxy (and cuts held connections). */
  close(): Promise<void>;
}

/**
 * A local HTTP proxy in front of a JSON-RPC node that injects faults, for resilience tests.
 *
 * @example
 * const proxy = await startFaultProxy(anvil.rpcUrl, seededFaults(42, 0.3));
 */
export async function startFaultProxy(
  upstream: string,
  policy: (n: number, body: string) => Fault = () => 'pass',
): Promise<FaultProxy> {
  let current = policy;
  const stats = { requests: 0, faults: {} as Record<string, number> };
  const sockets = new Set<Socket>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const n = stats.requests++;
      const fault = current(n, body);
      stats.faults[fault] = (stats.faults[fault] ?? 0) + 1;
      void handle(fault, body, req, res).catch(() => res.destroy());
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  async function handle(fault: Fault, body: string, req: IncomingMessage, res: ServerResponse) {
    switch (fault) {
      case 'timeout':
        return; // never answer; closed when the client gives up or the proxy stops
      case 'drop':
        req.socket.destroy();
        return;
      case 'status429':
        res.writeHead(429, { 'retry-after': '0', 'content-type': 'text/plain' }).end('slow down');
        return;
      case 'status500':
        res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
        return;
      case 'status503':
        res.writeHead(503, { 'content-type': 'text/html' }).end('<html>unavailable</html>');
        return;
      case 'garbage':
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end('{"jsonrpc":"2.0",<<garbage');
        return;
      case 'rpcError':
      case 'serverError':
      case 'methodNotFound': {
        const error = {
          rpcError: { code: -32005, message: 'limit exceeded' },
          serverError: { code: -32000, message: 'server error' },
          methodNotFound: { code: -32601, message: 'the method does not exist' },
        }[fault];
        const parsed = JSON.parse(body) as { id: unknown } | { id: unknown }[];
        const items = Array.isArray(parsed) ? parsed : [parsed];
        const out = items.map((i) => ({ jsonrpc: '2.0', id: i.id, error }));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(Array.isArray(parsed) ? out : out[0]));
        return;
      }
      default:
        break;
    }
    const upstreamRes = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    let text = await upstreamRes.text();
    if (fault === 'truncate') text = text.slice(0, Math.floor(text.length / 2));
    if (fault === 'partial') {
      const parsed = JSON.parse(text) as unknown;
      if (Array.isArray(parsed) && parsed.length > 1) text = JSON.stringify(parsed.slice(0, -1));
    }
    if (fault === 'traceErrors') {
      // What geth answers for transactions its tracer gave up on (e.g. "execution timeout").
      const parsed = JSON.parse(text) as { result?: unknown } | { result?: unknown }[];
      for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
        if (Array.isArray(item.result)) {
          item.result = item.result.map((e: { txHash?: string }) => ({
            txHash: e?.txHash,
            error: 'execution timeout',
          }));
        }
      }
      text = JSON.stringify(parsed);
    }
    res.writeHead(upstreamRes.status, { 'content-type': 'application/json' }).end(text);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    setPolicy(p) {
      current = p;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A reproducible policy: each request is faulty with probability `rate`, fault kind drawn evenly. */
export function seededFaults(
  seed: number,
  rate: number,
  kinds: Fault[] = [
    'timeout',
    'status429',
    'status500',
    'garbage',
    'truncate',
    'drop',
    'partial',
    'rpcError',
  ],
): (n: number) => Fault {
  let state = seed >>> 0 || 1;
  const next = () => {
    // xorshift32
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x100000000;
  };
  return () => (next() < rate ? (kinds[Math.floor(next() * kinds.length)] ?? 'pass') : 'pass');
}
