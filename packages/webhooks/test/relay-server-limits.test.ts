// The relay under a hostile but valid client: channel creation per client (and optionally behind
// a token), channels that expire when unused, and one byte budget for bodies and streams.
import { Agent, request, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createRelayServer,
  type RelayServerOptions,
} from '../src/relay-server/create-relay-server.js';
import { captureLog } from './helpers/capture-log.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startRelay(options: RelayServerOptions = {}) {
  const relay = createRelayServer({ log: captureLog(), ...options });
  const base = await relay.listen(0, '127.0.0.1');
  cleanups.push(() => relay.close());
  return { relay, base, port: Number(new URL(base).port) };
}

/** One HTTP request from a given loopback address (each address is another client). */
function send(
  port: number,
  agent: Agent,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const clientAgent = (localAddress: string): Agent => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, localAddress });
  cleanups.push(() => agent.destroy());
  return agent;
};

describe('relay channel creation', () => {
  it('1,000 POST /channels from one client: it is refused after its share; another client still gets a channel', async () => {
    const { port } = await startRelay();
    const greedy = clientAgent('127.0.0.1');
    const statuses = new Map<number, number>();
    for (let n = 0; n < 1000; n++) {
      const { status } = await send(port, greedy, 'POST', '/channels');
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect(statuses.get(201)).toBe(20);
    expect(statuses.get(429)).toBe(980);
    const other = await send(port, clientAgent('127.0.0.2'), 'POST', '/channels');
    expect(other.status).toBe(201);
    expect(JSON.parse(other.text).url).toMatch(/\/[A-Za-z0-9_-]{22}$/);
  });

  it('with createToken, only requests bearing it create channels', async () => {
    const { port } = await startRelay({ createToken: 'relay-token-1' });
    const agent = clientAgent('127.0.0.1');
    const none = await send(port, agent, 'POST', '/channels');
    expect(none.status).toBe(401);
    expect(JSON.parse(none.text).error).toMatch(/Authorization: Bearer/);
    expect(JSON.parse(none.text).error).not.toContain('relay-token-1');
    const wrong = { authorization: 'Bearer relay-token-2' };
    expect((await send(port, agent, 'POST', '/channels', wrong)).status).toBe(401);
    expect((await send(port, agent, 'GET', '/new', wrong)).status).toBe(401);
    const right = { authorization: 'Bearer relay-token-1' };
    expect((await send(port, agent, 'POST', '/channels', right)).status).toBe(201);
  });

  it('unused channels expire after channelIdleMs, which gives the client its share back', async () => {
    const { port, relay } = await startRelay({
      channelIdleMs: 300,
      heartbeatMs: 50,
      maxChannelsPerClient: 2,
    });
    const agent = clientAgent('127.0.0.1');
    const idle = JSON.parse((await send(port, agent, 'POST', '/channels')).text) as { id: string };
    const watched = JSON.parse((await send(port, agent, 'POST', '/channels')).text) as {
      id: string;
    };
    expect((await send(port, agent, 'POST', '/channels')).status).toBe(429);
    // A channel with a stream open is in use and stays.
    const stream = connect(port, '127.0.0.1');
    cleanups.push(() => stream.destroy());
    stream.write(`GET /${watched.id} HTTP/1.1\r\nhost: relay\r\n\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect((await send(port, agent, 'GET', `/${idle.id}/deliveries`)).status).toBe(404);
    expect((await send(port, agent, 'GET', `/${watched.id}/deliveries`)).status).toBe(200);
    expect(relay.channels.size).toBe(1);
    expect((await send(port, agent, 'POST', '/channels')).status).toBe(201);
  });
});

describe('relay byte budget', () => {
  it('refuses settings that could never work', () => {
    expect(() => createRelayServer({ maxBufferedBytes: 10, maxBodyBytes: 100 })).toThrow(
      /maxBufferedBytes must be at least maxBodyBytes/,
    );
    expect(() => createRelayServer({ createToken: '' })).toThrow(TypeError);
  });

  it('an SSE client that never reads, under concurrent uploads, holds at most maxBufferedBytes', async () => {
    const MiB = 1024 * 1024;
    const { port, relay } = await startRelay({
      maxBufferedBytes: 4 * MiB,
      // Far above the budget, so only the shared budget can stop this stream.
      maxClientBufferBytes: 256 * MiB,
      maxBodyBytes: MiB,
    });
    const agent = clientAgent('127.0.0.1');
    const { id } = JSON.parse((await send(port, agent, 'POST', '/channels')).text) as {
      id: string;
    };
    // Measured on the server's own response object, whatever the relay counts.
    let stream: ServerResponse | undefined;
    relay.server.on('request', (req, res: ServerResponse) => {
      if (req.method === 'GET' && req.url === `/${id}`) stream = res;
    });
    const reader = connect(port, '127.0.0.1');
    cleanups.push(() => reader.destroy());
    reader.pause();
    reader.write(`GET /${id} HTTP/1.1\r\nhost: relay\r\naccept: text/event-stream\r\n\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stream).toBeDefined();

    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, stream?.writableLength ?? 0, relay.stats().budgetUsed);
    }, 2);
    const body = JSON.stringify({ action: 'opened', filler: 'x'.repeat(512 * 1024) });
    const headers = {
      'content-type': 'application/json',
      'x-provider-event': 'issues',
      'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
    };
    const statuses: number[] = [];
    for (let round = 0; round < 6; round++) {
      const uploads = Array.from({ length: 10 }, (_, n) =>
        send(
          port,
          clientAgent(`127.0.1.${n + 1}`),
          'POST',
          `/${id}`,
          {
            ...headers,
            'x-provider-delivery': `d-${round}-${n}`,
          },
          body,
        ).then(({ status }) => statuses.push(status)),
      );
      await Promise.all(uploads);
      peak = Math.max(peak, stream?.writableLength ?? 0);
    }
    clearInterval(sampler);
    // 60 x 512 KiB went to a stream that reads nothing: unbounded, it would queue ~30 MiB.
    expect(peak).toBeLessThanOrEqual(5 * MiB);
    expect(statuses.every((status) => status === 202 || status === 503)).toBe(true);
    // The stalled stream gives way to deliveries rather than starving them.
    expect(statuses.filter((status) => status === 202).length).toBeGreaterThanOrEqual(50);
    // The stream that could not keep up was cut, and its bytes given back.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(relay.stats().streams).toBe(0);
    expect(relay.stats().budgetUsed).toBe(0);
  });
});
