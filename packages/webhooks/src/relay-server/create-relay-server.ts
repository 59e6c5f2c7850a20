import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, type Logger } from '../log.js';
import { buildRelayMessage } from './build-relay-message.js';
import { checkChannelCreation } from './check-channel-creation.js';
import { readBoundedBody } from './read-bounded-body.js';
import {
  CHANNEL_ID_PATTERN,
  type Channel,
  type ChannelClient,
  type ChannelLimits,
  createRelayChannels,
  type KeptDelivery,
  type RelayChannels,
} from './relay-channels.js';
import { createRelayMemory } from './relay-memory.js';

export interface RelayServerOptions extends Partial<ChannelLimits> {
  /** Largest accepted delivery body. Default 25 MiB (the provider's own cap). */
  maxBodyBytes?: number;
  /** Streams per channel. Default 32. */
  maxClientsPerChannel?: number;
  /** Unsent bytes a stream may queue before it is cut (it resumes with `Last-Event-ID`). */
  maxClientBufferBytes?: number;
  /**
   * Bytes held in memory at once over all request bodies being read and all unsent stream
   * bytes. A body that does not fit gets 503; a stream that does not fit is cut. Default 128 MiB.
   */
  maxBufferedBytes?: number;
  /**
   * When set, creating a channel (`POST /channels`, `/new`) needs `Authorization: Bearer
   * <createToken>`; without it, 401. Streams and deliveries use the channel URL only.
   */
  createToken?: string;
  /**
   * Who a request comes from, for `maxChannelsPerClient`. Default: the socket's remote address
   * (behind a proxy, derive it from the proxy's header here, or everyone shares one quota).
   */
  clientId?: (request: IncomingMessage) => string;
  /** Keep-alive comment interval. Default 30 s. */
  heartbeatMs?: number;
  /** Channels with no stream and no delivery for this long are removed. Default 2 hours. */
  channelIdleMs?: number;
  /** `retry:` hint sent to EventSource clients. Default 2000 ms. */
  retryMs?: number;
  /** Base of the channel URLs handed out, e.g. `https://relay.example`. Default: from `Host`. */
  publicUrl?: string;
  log?: Partial<Logger>;
}

export interface RelayServer {
  readonly server: Server;
  readonly channels: RelayChannels;
  /**
   * Memory held for clients right now: `bufferedBytes` is the unsent bytes of every stream, as
   * Node reports them; `budgetUsed` is what the byte budget counts (streams and bodies).
   */
  stats(): { streams: number; bufferedBytes: number; budgetUsed: number; channels: number };
  /** Listens (port 0 = any); resolves with the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  /** Ends every stream, stops accepting connections and resolves once the server is closed. */
  close(): Promise<void>;
}

const defaults = {
  maxBodyBytes: 25 * 1024 * 1024,
  maxChannels: 1000,
  maxChannelsPerClient: 20,
  maxBufferedBytes: 128 * 1024 * 1024,
  maxDeliveriesPerChannel: 100,
  maxChannelBytes: 32 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
  maxClientsPerChannel: 32,
  maxClientBufferBytes: 8 * 1024 * 1024,
  heartbeatMs: 30_000,
  channelIdleMs: 2 * 60 * 60 * 1000,
  retryMs: 2000,
};

/**
 * A self-hosted relay (the role smee.io plays): `POST /channels` creates a channel with an
 * unguessable id; the provider posts deliveries to `POST /:channel`; `GET /:channel` streams
 * them as Server-Sent Events in the relay message format, which `createRelayClient` consumes.
 * The newest deliveries of each channel are kept: a reconnecting client resumes after its
 * `Last-Event-ID` (or `?since=<id>`), and `POST /:channel/redeliver/:id` sends one again.
 *
 * @example
 * ```ts
 * const relay = createRelayServer({ maxDeliveriesPerChannel: 50 });
 * const base = await relay.listen(3000);
 * // POST `${base}/channels` -> { url }; point the provider's webhook at `url`
 * process.on('SIGTERM', () => relay.close());
 * ```
 */
export function createRelayServer(options: RelayServerOptions = {}): RelayServer {
  const settings = { ...defaults, ...definedOnly(options) };
  // Settings that could never work fail at start-up rather than refusing every request.
  if (settings.maxBufferedBytes < settings.maxBodyBytes) {
    throw new TypeError('createRelayServer(): maxBufferedBytes must be at least maxBodyBytes');
  }
  if (settings.createToken === '') {
    throw new TypeError('createRelayServer(): createToken must not be empty (leave it unset)');
  }
  const log = createLogger(options.log);
  const channels = createRelayChannels(settings);
  const memory = createRelayMemory(settings.maxBufferedBytes);
  const streams = new Set<ServerResponse>();
  const clientId =
    options.clientId ?? ((request: IncomingMessage) => request.socket.remoteAddress ?? 'unknown');
  let closing = false;

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      log.error('relay request failed', error);
      if (!response.headersSent) reply(response, 500, { error: 'Internal error' });
      else response.destroy();
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  const heartbeat = setInterval(() => {
    for (const stream of streams) stream.write(': ping\n\n');
    channels.removeIdle(settings.channelIdleMs);
  }, settings.heartbeatMs);
  heartbeat.unref();

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (closing)
      return reply(response, 503, { error: 'Relay shutting down' }, { connection: 'close' });
    const url = new URL(request.url ?? '/', 'http://relay.invalid');
    const segments = url.pathname.split('/').filter((segment) => segment !== '');
    const method = request.method ?? 'GET';
    const [first, second, third, ...rest] = segments;

    if (first === undefined) {
      if (method !== 'GET' && method !== 'HEAD') return notAllowed(response, 'GET, HEAD');
      return reply(response, 200, {
        relay: '@sluice/webhooks',
        create: 'POST /channels',
        channels: channels.size,
      });
    }
    if (first === 'channels' && second === undefined) {
      if (method !== 'POST') return notAllowed(response, 'POST');
      return createChannel(request, response, false);
    }
    if (first === 'new' && second === undefined) {
      if (method !== 'GET' && method !== 'POST') return notAllowed(response, 'GET, POST');
      return createChannel(request, response, method === 'GET');
    }
    if (!CHANNEL_ID_PATTERN.test(first)) {
      return reply(response, 400, { error: 'Malformed channel id' });
    }
    const channel = channels.get(first);
    if (channel === undefined) return reply(response, 404, { error: 'Unknown channel' });

    if (second === undefined) {
      if (method === 'POST') return receiveDelivery(request, response, channel);
      if (method === 'GET') return openStream(request, response, channel, url);
      if (method === 'DELETE') {
        channels.remove(channel);
        return reply(response, 204);
      }
      return notAllowed(response, 'GET, POST, DELETE');
    }
    if (second === 'deliveries' && third === undefined) {
      if (method !== 'GET') return notAllowed(response, 'GET');
      return reply(response, 200, {
        deliveries: channel.deliveries.map(({ message: _message, ...meta }) => meta),
      });
    }
    if (second === 'redeliver' && third !== undefined && rest.length === 0) {
      if (method !== 'POST') return notAllowed(response, 'POST');
      const seq = parseSeq(third);
      if (seq === undefined) return reply(response, 400, { error: 'Malformed delivery id' });
      const kept = channels.find(channel, seq);
      if (kept === undefined) {
        return reply(response, 404, { error: 'Delivery not kept (unknown or evicted)' });
      }
      const again = channels.publish(channel, {
        message: kept.message,
        event: kept.event,
        deliveryId: kept.deliveryId,
        redeliveryOf: kept.seq,
      });
      return reply(response, 202, {
        id: again.seq,
        redeliveryOf: kept.seq,
        clients: channel.clients.size,
      });
    }
    return reply(response, 404, { error: 'Unknown route' });
  }

  function createChannel(request: IncomingMessage, response: ServerResponse, redirect: boolean) {
    const owner = clientId(request);
    const refusal = checkChannelCreation(request, owner, channels, settings.createToken);
    if (refusal !== undefined) {
      return reply(response, refusal.status, { error: refusal.error }, refusal.headers);
    }
    const channel = channels.create(owner);
    if (channel === undefined) return reply(response, 503, { error: 'Too many channels' });
    const base =
      settings.publicUrl?.replace(/\/+$/, '') ?? `http://${request.headers.host ?? 'localhost'}`;
    const channelUrl = `${base}/${channel.id}`;
    log.info(`relay channel ${channel.id.slice(0, 4)}… created`);
    if (redirect) return reply(response, 307, { url: channelUrl }, { location: channelUrl });
    return reply(response, 201, { id: channel.id, url: channelUrl }, { location: channelUrl });
  }

  async function receiveDelivery(
    request: IncomingMessage,
    response: ServerResponse,
    channel: Channel,
  ) {
    const body = await readBoundedBody(request, settings.maxBodyBytes, memory.bodies);
    if (!body.ok) {
      // An unread body must not be drained into memory: close the connection after replying.
      const headers: OutgoingHttpHeaders = { connection: 'close' };
      if (body.status === 503) headers['retry-after'] = '5';
      return reply(response, body.status, { error: body.reason }, headers);
    }
    const built = buildRelayMessage(request.headers, body.text);
    if (!built.ok) return reply(response, 400, { error: built.reason });
    const delivery = channels.publish(channel, built);
    return reply(response, 202, { id: delivery.seq, clients: channel.clients.size });
  }

  function openStream(
    request: IncomingMessage,
    response: ServerResponse,
    channel: Channel,
    url: URL,
  ) {
    const resumeFrom =
      request.headers['last-event-id'] ?? url.searchParams.get('since') ?? undefined;
    const after = resumeFrom === undefined ? undefined : parseSeq(String(resumeFrom));
    if (resumeFrom !== undefined && after === undefined) {
      return reply(response, 400, { error: 'Malformed Last-Event-ID' });
    }
    if (channel.clients.size >= settings.maxClientsPerChannel) {
      return reply(response, 429, { error: 'Too many streams on this channel' });
    }
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    response.socket?.setNoDelay(true);
    response.write(`retry: ${settings.retryMs}\n\nevent: ready\ndata: {}\n\n`);
    streams.add(response);
    // A client this far behind (or a relay this full) is cut; it resumes from its
    // Last-Event-ID on reconnect.
    const holding = memory.track(response, settings.maxClientBufferBytes, () =>
      log.warn(`relay stream on ${channel.id.slice(0, 4)}… too slow; disconnected`),
    );
    const client: ChannelClient = {
      send(delivery: KeptDelivery) {
        holding.write(`id: ${delivery.seq}\ndata: ${delivery.message}\n\n`);
      },
      close() {
        response.end();
      },
    };
    if (after !== undefined)
      for (const delivery of channels.since(channel, after)) client.send(delivery);
    channel.clients.add(client);
    channel.lastActiveAt = Date.now();
    response.on('close', () => {
      holding.release();
      channel.clients.delete(client);
      channel.lastActiveAt = Date.now();
      streams.delete(response);
    });
  }

  return {
    server,
    channels,
    stats() {
      let bufferedBytes = 0;
      for (const stream of streams) bufferedBytes += stream.writableLength;
      return {
        streams: streams.size,
        bufferedBytes,
        budgetUsed: memory.used,
        channels: channels.size,
      };
    },
    listen(port = 0, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${shownHost}:${address.port}`);
        });
      });
    },
    close() {
      closing = true;
      clearInterval(heartbeat);
      for (const stream of streams) stream.end();
      return new Promise((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeIdleConnections();
        // Requests still being read get a short grace, then their sockets are closed.
        setTimeout(() => server.closeAllConnections(), 1000).unref();
      });
    },
  };
}

function parseSeq(text: string): number | undefined {
  if (!/^\d{1,15}$/.test(text)) return undefined;
  return Number(text);
}

function notAllowed(response: ServerResponse, allow: string): void {
  reply(response, 405, { error: 'Method not allowed' }, { allow });
}

function reply(
  response: ServerResponse,
  status: number,
  body?: object,
  headers: OutgoingHttpHeaders = {},
): void {
  if (body === undefined) {
    response.writeHead(status, headers).end();
    return;
  }
  const text = JSON.stringify(body);
  response
    .writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      ...headers,
    })
    .end(text);
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
}
