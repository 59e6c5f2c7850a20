import { Agent, request } from 'node:http';

export interface Target {
  port: number;
  headers: Record<string, string>;
}

function send(agent: Agent, target: Target, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        method: 'POST',
        path: '/api/hosting/webhooks',
        agent,
        headers: { ...target.headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
          else resolve(Number(process.hrtime.bigint() - started) / 1000);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Median request latency (µs) of two receivers, measured by alternating single requests
 * between them over one keep-alive connection each: load from other processes hits both
 * alike, which makes this the steadiest comparison on a shared machine.
 */
export async function interleavedMedianLatency(
  a: Target,
  b: Target,
  body: string,
  requests: number,
  warmup = 300,
): Promise<[number, number]> {
  const agentA = new Agent({ keepAlive: true, maxSockets: 1 });
  const agentB = new Agent({ keepAlive: true, maxSockets: 1 });
  const latA: number[] = [];
  const latB: number[] = [];
  try {
    for (let i = 0; i < warmup + requests; i++) {
      // Swap who goes first each iteration so neither side always follows the other.
      let la: number;
      let lb: number;
      if (i % 2 === 0) {
        la = await send(agentA, a, body);
        lb = await send(agentB, b, body);
      } else {
        lb = await send(agentB, b, body);
        la = await send(agentA, a, body);
      }
      if (i >= warmup) {
        latA.push(la);
        latB.push(lb);
      }
    }
  } finally {
    agentA.destroy();
    agentB.destroy();
  }
  const median = (values: number[]) => values.sort((x, y) => x - y)[values.length >> 1] ?? 0;
  return [median(latA), median(latB)];
}
