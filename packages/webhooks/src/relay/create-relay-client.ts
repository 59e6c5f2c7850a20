import { EventSource, type FetchLike } from 'eventsource';
import { InvalidArgumentError } from '../errors.js';
import { createLogger, type Logger } from '../log.js';
import type { WebhooksLike } from '../middleware/types.js';
import { receiveRelayMessage } from './receive-relay-message.js';

export interface RelayClientOptions {
  /** The relay channel's Server-Sent Events URL. */
  url: string | URL;
  webhooks: WebhooksLike;
  /** Default: the `Webhooks` instance's logger. */
  log?: Partial<Logger>;
  /** First delay before reconnecting after the server refused the stream. Default 1000 ms. */
  reconnectDelayMs?: number;
  /** Upper bound of the doubling reconnect delay. Default 30000 ms. */
  maxReconnectDelayMs?: number;
  /** Custom fetch (proxy, auth headers). Default: global fetch. */
  fetch?: FetchLike;
}

export interface RelayClient {
  /** Connects; resolves once the stream is open. Idempotent. */
  start(): Promise<void>;
  /** Disconnects and stops reconnecting. */
  close(): void;
  /** Whether the stream is open right now. */
  readonly connected: boolean;
  /** Resolves when every delivery received so far has been handled (settled). */
  idle(): Promise<void>;
}

/**
 * Receives deliveries from a relay channel over Server-Sent Events and hands each `message`
 * event to `receiveRelayMessage`. Dropped streams are reconnected by EventSource; refused ones
 * (non-200, wrong content type) with a doubling delay. Failed deliveries are logged (and reach
 * `onError` handlers); they never stop the client.
 *
 * @example
 * ```ts
 * const relay = createRelayClient({ url: 'https://relay.example/channel/abc', webhooks });
 * await relay.start();
 * // ... later
 * relay.close();
 * ```
 */
export function createRelayClient(options: RelayClientOptions): RelayClient {
  const { url, webhooks, reconnectDelayMs = 1000, maxReconnectDelayMs = 30_000 } = options;
  if (typeof url !== 'string' && !(url instanceof URL)) {
    throw new InvalidArgumentError('createRelayClient(): url required');
  }
  if (webhooks === null || typeof webhooks?.verifyAndReceive !== 'function') {
    throw new InvalidArgumentError('createRelayClient(): a Webhooks instance is required');
  }
  const log = options.log ? createLogger(options.log) : (webhooks.log ?? createLogger());
  // The channel URL is the only credential of many relays: log its origin only.
  const origin = new URL(url).origin;

  let source: EventSource | undefined;
  let reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  let delay = reconnectDelayMs;
  let closed = false;
  let started: Promise<void> | undefined;
  let resolveOpen: (() => void) | undefined;
  const inFlight = new Set<Promise<void>>();

  const handleMessage = (data: string): void => {
    const delivery = receiveRelayMessage(webhooks, data)
      .catch((error: unknown) => {
        const first =
          error instanceof AggregateError && error.errors.length > 0 ? error.errors[0] : error;
        log.warn(
          `relay delivery failed: ${first instanceof Error ? `${first.name}: ${first.message}` : String(first)}`,
        );
      })
      .finally(() => inFlight.delete(delivery));
    inFlight.add(delivery);
  };

  const connect = (): void => {
    reconnectTimer = undefined;
    if (closed) return;
    const current = new EventSource(url, options.fetch ? { fetch: options.fetch } : undefined);
    source = current;
    current.onopen = () => {
      delay = reconnectDelayMs;
      log.info(`relay connected to ${origin}`);
      resolveOpen?.();
      resolveOpen = undefined;
    };
    current.onmessage = (event) => handleMessage(String(event.data));
    current.onerror = (event) => {
      if (closed || source !== current) return;
      if (current.readyState === current.CLOSED) {
        // EventSource gave up (refused stream): retry ourselves with a doubling delay.
        log.warn(
          `relay stream to ${origin} refused (${event.message ?? 'error'}); reconnecting in ${delay} ms`,
        );
        reconnectTimer = setTimeout(connect, delay);
        delay = Math.min(delay * 2, maxReconnectDelayMs);
      } else {
        log.warn(`relay stream to ${origin} dropped; reconnecting`);
      }
    };
  };

  return {
    start() {
      if (closed) return Promise.reject(new Error('relay client closed'));
      started ??= new Promise<void>((resolve) => {
        resolveOpen = resolve;
        connect();
      });
      return started;
    },
    close() {
      closed = true;
      if (reconnectTimer !== undefined) clearTimeout(reconnectTimer);
      source?.close();
      source = undefined;
      resolveOpen = undefined;
    },
    get connected() {
      return source !== undefined && source.readyState === source.OPEN;
    },
    async idle() {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  };
}
