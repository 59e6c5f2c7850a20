import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { InvalidRelayMessageError } from '../src/errors.js';
import { createRelayClient, type RelayClient } from '../src/relay/create-relay-client.js';
import { receiveRelayMessage } from '../src/relay/receive-relay-message.js';
import type { WebhookEventHandlerError } from '../src/types.js';
import { Webhooks } from '../src/webhooks.js';
import { captureLog } from './helpers/capture-log.js';
import { independentSign } from './helpers/independent-sign.js';
import { startSseServer } from './helpers/sse-server.js';

const secret = 'relay-secret';
const body = { action: 'opened', issue: { id: 7, title: 'relayed ünïcödé' } };
const bodyText = JSON.stringify(body);

function message(overrides: Record<string, unknown> = {}) {
  return {
    'x-request-id': 'relay-1',
    'x-provider-event': 'issues',
    'x-hub-signature': independentSign(secret, bodyText),
    body,
    ...overrides,
  };
}

function setup() {
  const log = captureLog();
  const webhooks = new Webhooks({ secret, log });
  const events: Array<{ id: string; name: string; payload: unknown }> = [];
  webhooks.on('issues.opened', ({ id, name, payload }) => void events.push({ id, name, payload }));
  const errors: WebhookEventHandlerError[] = [];
  webhooks.onError((error) => void errors.push(error));
  return { webhooks, log, events, errors };
}

describe('receiveRelayMessage', () => {
  it('hands x-request-id, x-provider-event, x-hub-signature and JSON text of body to verifyAndReceive', async () => {
    const { webhooks, events } = setup();
    const spy = vi.spyOn(webhooks, 'verifyAndReceive');
    await receiveRelayMessage(webhooks, message());
    expect(spy).toHaveBeenCalledWith({
      id: 'relay-1',
      name: 'issues',
      payload: bodyText,
      signature: independentSign(secret, bodyText),
    });
    expect(events).toEqual([{ id: 'relay-1', name: 'issues', payload: body }]);
  });

  it('accepts the message as JSON text', async () => {
    const { webhooks, events } = setup();
    await receiveRelayMessage(webhooks, JSON.stringify(message()));
    expect(events).toHaveLength(1);
  });

  it('prefers x-hub-signature-256 and takes a string body as the exact text', async () => {
    const { webhooks, events } = setup();
    const exact = '{ "action": "opened",  "issue": {"id": 7} }';
    await receiveRelayMessage(
      webhooks,
      message({
        'x-hub-signature': 'sha1=0000000000000000000000000000000000000000',
        'x-hub-signature-256': independentSign(secret, exact),
        body: exact,
      }),
    );
    expect(events).toHaveLength(1);
  });

  it('falls back to x-provider-delivery for the id', async () => {
    const { webhooks, events } = setup();
    await receiveRelayMessage(
      webhooks,
      message({ 'x-request-id': undefined, 'x-provider-delivery': 'delivery-9' }),
    );
    expect(events[0]?.id).toBe('delivery-9');
  });

  it('a bad signature rejects and emits an error', async () => {
    const { webhooks, events, errors } = setup();
    const error = await receiveRelayMessage(
      webhooks,
      message({ 'x-hub-signature': independentSign('wrong', bodyText) }),
    ).catch((e: unknown) => e);
    expect((error as AggregateError).message).toBe(
      '[@sluice/webhooks] signature does not match event payload and secret',
    );
    expect(errors).toHaveLength(1);
    expect(events).toHaveLength(0);
  });

  it('a missing signature is a verification failure', async () => {
    const { webhooks, errors } = setup();
    await expect(
      receiveRelayMessage(webhooks, message({ 'x-hub-signature': undefined })),
    ).rejects.toThrow('signature does not match');
    expect(errors).toHaveLength(1);
  });

  it.each([
    ['text that is not JSON', 'not json', 'message is not JSON'],
    ['a JSON array', '[1]', 'message must be a JSON object'],
    ['null', null, 'message must be a JSON object'],
    ['no event', message({ 'x-provider-event': undefined }), '"x-provider-event" missing'],
    ['no id', message({ 'x-request-id': undefined }), '"x-request-id" missing'],
    ['no body', message({ body: undefined }), '"body" missing'],
  ])('rejects %s with InvalidRelayMessageError', async (_label, input, details) => {
    const { webhooks } = setup();
    const error = await receiveRelayMessage(webhooks, input as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRelayMessageError);
    expect((error as Error).message).toBe(`Invalid relay message: ${details}`);
  });
});

describe('createRelayClient over Server-Sent Events', () => {
  let sse: Awaited<ReturnType<typeof startSseServer>>;
  let client: RelayClient | undefined;
  beforeAll(async () => {
    sse = await startSseServer();
  });
  afterEach(() => client?.close());
  afterAll(() => sse.close());

  const until = async (condition: () => boolean, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  it('connects, delivers relayed messages and ignores other event types', async () => {
    const { webhooks, events, log } = setup();
    client = createRelayClient({ url: sse.url, webhooks, log });
    await client.start();
    expect(client.connected).toBe(true);
    sse.send('{}', 'ping');
    sse.send(JSON.stringify(message()));
    await until(() => events.length === 1);
    await client.idle();
    expect(events[0]).toEqual({ id: 'relay-1', name: 'issues', payload: body });
    // The channel URL (a credential for many relays) is never logged, only its origin.
    expect(log.all()).not.toContain('secret-channel-id');
    expect(log.lines.info.join('\n')).toMatch(/relay connected to http:\/\/127\.0\.0\.1:\d+/);
  });

  it('logs malformed and unverifiable messages and keeps going', async () => {
    const { webhooks, events, log } = setup();
    client = createRelayClient({ url: sse.url, webhooks, log });
    await client.start();
    sse.send('not json');
    sse.send(JSON.stringify(message({ 'x-hub-signature': independentSign('wrong', bodyText) })));
    sse.send(JSON.stringify(message({ 'x-request-id': 'after-errors' })));
    await until(() => events.length === 1);
    await client.idle();
    expect(events[0]?.id).toBe('after-errors');
    expect(log.lines.warn).toEqual([
      'relay delivery failed: InvalidRelayMessageError: Invalid relay message: message is not JSON',
      'relay delivery failed: Error: [@sluice/webhooks] signature does not match event payload and secret',
    ]);
  });

  it('reconnects after the stream drops', async () => {
    const { webhooks, events, log } = setup();
    client = createRelayClient({ url: sse.url, webhooks, log });
    await client.start();
    const before = sse.connections;
    sse.drop();
    await until(() => sse.connections > before && sse.open === 1);
    sse.send(JSON.stringify(message({ 'x-request-id': 'after-drop' })));
    await until(() => events.length === 1);
    expect(events[0]?.id).toBe('after-drop');
  });

  it('retries with backoff when the server refuses the stream, then recovers', async () => {
    const { webhooks, events, log } = setup();
    sse.refuse(2);
    const before = sse.connections;
    client = createRelayClient({ url: sse.url, webhooks, log, reconnectDelayMs: 20 });
    await client.start();
    expect(sse.connections - before).toBe(3);
    expect(log.lines.warn.filter((l) => l.includes('refused'))).toHaveLength(2);
    expect(log.lines.warn[0]).toMatch(/reconnecting in 20 ms/);
    expect(log.lines.warn[1]).toMatch(/reconnecting in 40 ms/);
    sse.send(JSON.stringify(message({ 'x-request-id': 'after-refusal' })));
    await until(() => events.length === 1);
  });

  it('close() disconnects and stops reconnecting', async () => {
    const { webhooks, log } = setup();
    client = createRelayClient({ url: sse.url, webhooks, log });
    await client.start();
    client.close();
    expect(client.connected).toBe(false);
    await until(() => sse.open === 0);
    const after = sse.connections;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sse.connections).toBe(after);
    await expect(client.start()).rejects.toThrow('relay client closed');
  });

  it('rejects bad options with a TypeError', () => {
    const { webhooks } = setup();
    expect(() => createRelayClient({ url: undefined as never, webhooks })).toThrow(TypeError);
    expect(() => createRelayClient({ url: sse.url, webhooks: {} as never })).toThrow(TypeError);
  });
});
