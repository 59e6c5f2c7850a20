import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRelayClient, type RelayClient } from '../src/relay/create-relay-client.js';
import {
  createRelayServer,
  type RelayServerOptions,
} from '../src/relay-server/create-relay-server.js';
import { Webhooks } from '../src/webhooks.js';
import { captureLog } from './helpers/capture-log.js';
import { independentSign } from './helpers/independent-sign.js';

const secret = 'relay-server-secret';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startRelay(options: RelayServerOptions = {}) {
  const relay = createRelayServer({ log: captureLog(), ...options });
  const base = await relay.listen(0);
  cleanups.push(() => relay.close());
  return { relay, base };
}

async function newChannel(base: string): Promise<string> {
  const response = await fetch(`${base}/channels`, { method: 'POST' });
  expect(response.status).toBe(201);
  const { id, url } = (await response.json()) as { id: string; url: string };
  expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  expect(url).toBe(`${base}/${id}`);
  return url;
}

/** What the provider does: POST the signed delivery to the channel URL. */
function providerPost(url: string, body: string, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-provider-event': 'issues',
      'x-provider-delivery': `delivery-${Math.random()}`,
      'x-hub-signature-256': independentSign(secret, body),
      ...headers,
    },
    body,
  });
}

function receiver() {
  const webhooks = new Webhooks({ secret, log: captureLog() });
  const received: Array<{ id: string; title: string }> = [];
  const errors: string[] = [];
  webhooks.onError((error) => void errors.push(error.message));
  return { webhooks, received, errors };
}

function startClient(url: string, webhooks: Webhooks): RelayClient {
  const client = createRelayClient({ url, webhooks, log: captureLog(), reconnectDelayMs: 20 });
  cleanups.push(() => client.close());
  return client;
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Reads a raw SSE stream until `count` deliveries (`id:` lines) arrived. */
async function readEvents(url: string, headers: Record<string, string>, count: number) {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  const events: Array<{ id: number; data: Record<string, unknown> }> = [];
  while (events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    let end = text.indexOf('\n\n');
    while (end !== -1) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      const id = /^id: (\d+)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (id !== undefined && data !== undefined) {
        events.push({ id: Number(id), data: JSON.parse(data) as Record<string, unknown> });
      }
      end = text.indexOf('\n\n');
    }
  }
  controller.abort();
  return events;
}

describe('relay server: provider -> relay -> client -> verifyAndReceive', () => {
  it('delivers signed deliveries end to end, exact bytes included', async () => {
    const { base } = await startRelay();
    const url = await newChannel(base);
    const { webhooks, received, errors } = receiver();
    webhooks.on('issues.opened', ({ id, payload }) => {
      received.push({ id, title: payload.issue.title });
    });
    const client = startClient(url, webhooks);
    await client.start();

    const compact = JSON.stringify({ action: 'opened', issue: { title: 'compact ü' } });
    // Not what JSON.stringify gives back: only the exact text verifies.
    const pretty = '{ "action": "opened",\n  "issue": { "title": "pretty \\u00fc", "n": 1.0 } }';
    for (const [index, body] of [compact, pretty].entries()) {
      const response = await providerPost(url, body, { 'x-provider-delivery': `d-${index}` });
      expect(response.status).toBe(202);
      expect(await response.json()).toMatchObject({ clients: 1 });
    }
    await until(() => received.length === 2, 'two deliveries');
    await client.idle();
    expect(received).toEqual([
      { id: 'd-0', title: 'compact ü' },
      { id: 'd-1', title: 'pretty ü' },
    ]);
    expect(errors).toEqual([]);
  });

  it('streams messages in the spec format', async () => {
    const { relay, base } = await startRelay();
    const url = await newChannel(base);
    const body = JSON.stringify({ action: 'opened' });
    const reading = readEvents(url, {}, 1);
    const channel = relay.channels.get(new URL(url).pathname.slice(1));
    await until(() => channel?.clients.size === 1, 'the stream');
    await providerPost(url, body, {
      'x-provider-delivery': 'abc',
      authorization: 'Bearer must-not-be-forwarded',
      cookie: 'session=secret',
    });
    const [event] = await reading;
    expect(event?.data).toMatchObject({
      'x-request-id': 'abc',
      'x-provider-event': 'issues',
      'x-provider-delivery': 'abc',
      'x-hub-signature': independentSign(secret, body),
      'x-hub-signature-256': independentSign(secret, body),
      'content-type': 'application/json',
      body: { action: 'opened' },
    });
    expect(event?.data).not.toHaveProperty('authorization');
    expect(event?.data).not.toHaveProperty('cookie');
  });

  it('a failed delivery is redelivered on request, and reaches the handler again', async () => {
    const { base } = await startRelay();
    const url = await newChannel(base);
    const { webhooks, received, errors } = receiver();
    let failNext = true;
    webhooks.on('issues', ({ id }) => {
      if (failNext) {
        failNext = false;
        throw new Error('database down');
      }
      received.push({ id, title: '' });
    });
    const client = startClient(url, webhooks);
    await client.start();
    await providerPost(url, JSON.stringify({ action: 'opened' }), { 'x-provider-delivery': 'r1' });
    await until(() => errors.length === 1, 'the failure');
    expect(received).toEqual([]);

    const list = (await (await fetch(`${url}/deliveries`)).json()) as {
      deliveries: Array<{ seq: number; deliveryId: string; event: string }>;
    };
    expect(list.deliveries).toMatchObject([{ seq: 1, deliveryId: 'r1', event: 'issues' }]);
    const again = await fetch(`${url}/redeliver/1`, { method: 'POST' });
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual({ id: 2, redeliveryOf: 1, clients: 1 });
    await until(() => received.length === 1, 'the redelivery');
    expect(received[0]?.id).toBe('r1');
  });

  it('resumes after Last-Event-ID (and ?since=) with the kept deliveries', async () => {
    const { base } = await startRelay();
    const url = await newChannel(base);
    for (const n of [1, 2, 3]) {
      await providerPost(url, JSON.stringify({ n }), { 'x-provider-delivery': `n${n}` });
    }
    const resumed = await readEvents(url, { 'last-event-id': '1' }, 2);
    expect(resumed.map((event) => [event.id, event.data['x-request-id']])).toEqual([
      [2, 'n2'],
      [3, 'n3'],
    ]);
    const all = await readEvents(`${url}?since=0`, {}, 3);
    expect(all.map((event) => event.id)).toEqual([1, 2, 3]);
  });
  it('a client whose stream drops gets what was delivered meanwhile (Last-Event-ID)', async () => {
    const { relay, base } = await startRelay({ retryMs: 50 });
    const url = await newChannel(base);
    const channel = relay.channels.get(new URL(url).pathname.slice(1));
    const { webhooks, received } = receiver();
    webhooks.on('issues', ({ id }) => void received.push({ id, title: '' }));
    const client = startClient(url, webhooks);
    await client.start();
    await providerPost(url, '{"n":1}', { 'x-provider-delivery': 'before' });
    await until(() => received.length === 1, 'the first delivery');
    for (const stream of channel?.clients ?? []) stream.close();
    await until(() => channel?.clients.size === 0, 'the drop');
    await providerPost(url, '{"n":2}', { 'x-provider-delivery': 'during' });
    await until(() => received.length === 2, 'the delivery made while disconnected');
    await providerPost(url, '{"n":3}', { 'x-provider-delivery': 'after' });
    await until(() => received.length === 3, 'the delivery after reconnecting');
    expect(received.map((event) => event.id)).toEqual(['before', 'during', 'after']);
  });
});

describe('relay server: bounds', () => {
  it('keeps only the newest deliveries per channel and within the byte bounds', async () => {
    const { relay, base } = await startRelay({
      maxDeliveriesPerChannel: 3,
      maxTotalBytes: 4000,
    });
    const first = await newChannel(base);
    const second = await newChannel(base);
    for (let n = 1; n <= 5; n++) await providerPost(first, JSON.stringify({ n }));
    const kept = (await (await fetch(`${first}/deliveries`)).json()) as {
      deliveries: Array<{ seq: number }>;
    };
    expect(kept.deliveries.map((delivery) => delivery.seq)).toEqual([3, 4, 5]);
    expect((await fetch(`${first}/redeliver/1`, { method: 'POST' })).status).toBe(404);

    // Big deliveries on the second channel push the first channel's oldest out.
    const big = JSON.stringify({ pad: 'x'.repeat(1200) });
    for (let n = 0; n < 3; n++) await providerPost(second, big);
    expect(relay.channels.totalBytes).toBeLessThanOrEqual(4000);
    const after = (await (await fetch(`${first}/deliveries`)).json()) as {
      deliveries: unknown[];
    };
    expect(after.deliveries.length).toBeLessThan(3);
  });

  it('cuts a client that does not read, and keeps serving the others', async () => {
    const { relay, base } = await startRelay({ maxClientBufferBytes: 64 * 1024 });
    const url = await newChannel(base);
    const { port, pathname } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    cleanups.push(() => socket.destroy());
    socket.write(`GET ${pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    socket.pause(); // never reads: the relay's buffer for it grows
    const channelId = pathname.slice(1);
    await until(() => relay.channels.get(channelId)?.clients.size === 1, 'the stream');
    const body = JSON.stringify({ pad: 'y'.repeat(512 * 1024) });
    for (let n = 0; n < 40 && relay.channels.get(channelId)?.clients.size === 1; n++) {
      expect((await providerPost(url, body)).status).toBe(202);
    }
    expect(relay.channels.get(channelId)?.clients.size).toBe(0);
    expect((await providerPost(url, JSON.stringify({ ok: true }))).status).toBe(202);
  });

  it('refuses oversized bodies with 413, declared or streamed', async () => {
    const { base } = await startRelay({ maxBodyBytes: 1024 });
    const url = await newChannel(base);
    const declared = await providerPost(url, JSON.stringify({ pad: 'z'.repeat(2048) }));
    expect(declared.status).toBe(413);
    const streamed = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-provider-event': 'push' },
      body: new ReadableStream({
        start(controller) {
          for (let n = 0; n < 4; n++) controller.enqueue(new TextEncoder().encode('x'.repeat(512)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    const kept = (await (await fetch(`${url}/deliveries`)).json()) as { deliveries: unknown[] };
    expect(kept.deliveries).toEqual([]);
  });
});

describe('relay server: bad requests', () => {
  it('answers unknown channels, malformed ids and wrong methods clearly', async () => {
    const { base } = await startRelay();
    const url = await newChannel(base);
    const unknown = `${base}/${'A'.repeat(22)}`;
    expect((await fetch(unknown)).status).toBe(404);
    expect((await providerPost(unknown, '{}')).status).toBe(404);
    for (const malformed of ['short', `${'A'.repeat(21)}!`, 'A'.repeat(23)]) {
      const response = await fetch(`${base}/${encodeURIComponent(malformed)}`);
      expect(response.status, malformed).toBe(400);
    }
    const put = await fetch(url, { method: 'PUT', body: '{}' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE');
    expect((await fetch(`${base}/channels`)).status).toBe(405);
    expect((await fetch(`${url}/redeliver/1`)).status).toBe(405);
    expect((await fetch(`${url}/redeliver/abc`, { method: 'POST' })).status).toBe(400);
    expect((await fetch(`${url}/redeliver/99`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${url}/nope`)).status).toBe(404);
    expect((await fetch(url, { headers: { 'last-event-id': 'x' } })).status).toBe(400);
  });

  it('refuses deliveries without an event name or with a non-JSON body', async () => {
    const { base } = await startRelay();
    const url = await newChannel(base);
    const noEvent = await fetch(url, { method: 'POST', body: '{}' });
    expect(noEvent.status).toBe(400);
    expect(await noEvent.json()).toEqual({ error: 'X-Provider-Event header missing' });
    const notJson = await providerPost(url, 'not json');
    expect(notJson.status).toBe(400);
    const notUtf8 = await fetch(url, {
      method: 'POST',
      headers: { 'x-provider-event': 'push' },
      body: new Uint8Array([0x7b, 0xff, 0x7d]),
    });
    expect(notUtf8.status).toBe(400);
  });

  it('channel ids are 128-bit random and distinct; GET /new redirects to a new channel', async () => {
    const { base } = await startRelay({ maxChannelsPerClient: 100 });
    const ids = new Set<string>();
    for (let n = 0; n < 50; n++) ids.add(new URL(await newChannel(base)).pathname);
    expect(ids.size).toBe(50);
    const redirect = await fetch(`${base}/new`, { redirect: 'manual' });
    expect(redirect.status).toBe(307);
    expect(redirect.headers.get('location')).toMatch(/\/[A-Za-z0-9_-]{22}$/);
  });

  it('limits channels and deleting a channel ends its streams', async () => {
    const { base } = await startRelay({ maxChannels: 1 });
    const url = await newChannel(base);
    expect((await fetch(`${base}/channels`, { method: 'POST' })).status).toBe(503);
    const response = await fetch(url);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    expect((await fetch(url, { method: 'DELETE' })).status).toBe(204);
    for (;;) if ((await reader.read()).done) break;
    expect((await fetch(url)).status).toBe(404);
    await newChannel(base);
  });
});

describe('relay server: shutdown', () => {
  it('close() ends open streams and stops listening', async () => {
    const relay = createRelayServer({ log: captureLog() });
    const base = await relay.listen(0);
    const url = await newChannel(base);
    const response = await fetch(url);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await relay.close();
    for (;;) if ((await reader.read()).done) break;
    await expect(fetch(url)).rejects.toThrow();
  });
});

describe('sluice-webhooks relay (bin)', () => {
  it('serves channels until SIGTERM, then exits 0; bad options exit 2', async () => {
    const { spawn } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const bin = fileURLToPath(new URL('../src/bin/sluice-webhooks.ts', import.meta.url));
    const run = (args: string[]) =>
      spawn(process.execPath, ['--import', 'tsx', bin, ...args], { stdio: 'pipe' });

    const child = run(['relay', '--port', '0', '--max-deliveries', '5']);
    cleanups.push(() => child.kill('SIGKILL'));
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await until(() => /listening on (http:\/\/\S+)/.test(output), 'the relay to listen');
    const base = /listening on (http:\/\/\S+)/.exec(output)?.[1] as string;
    const url = await newChannel(base);
    expect((await providerPost(url, '{"action":"opened"}')).status).toBe(202);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    for (const args of [['relay', '--port', 'abc'], ['nope'], ['relay', '--max-channels', '0']]) {
      const bad = run(args);
      let stderr = '';
      bad.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      expect(await new Promise((resolve) => bad.on('exit', resolve)), args.join(' ')).toBe(2);
      expect(stderr).not.toBe('');
    }
  });
});
