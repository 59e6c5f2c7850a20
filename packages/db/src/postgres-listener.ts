import pg from 'pg';
import { channelList } from './listen-channel.js';
import type { Listener, ListenOptions } from './types.js';

/**
 * `LISTEN` on a dedicated client (a pooled one would be handed to other queries). When the
 * connection drops it reconnects with backoff and says so through `onConnectionChange`, because
 * notifications sent meanwhile are lost.
 */
export async function listenPostgres(
  config: pg.ClientConfig,
  channel: string | readonly string[],
  onNotify: (payload: string, channel: string) => void,
  options: ListenOptions = {},
): Promise<Listener> {
  const channels = channelList(channel);
  const firstDelay = options.reconnectDelayMs ?? 250;
  let client: pg.Client | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let delay = firstDelay;

  const connect = async (): Promise<void> => {
    const next = new pg.Client(config);
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      next.removeAllListeners('notification');
      next.end().catch(() => {});
      if (client === next) client = undefined;
      if (closed) return;
      options.onConnectionChange?.(false);
      scheduleReconnect();
    };
    next.on('error', onLost);
    next.on('end', onLost);
    next.on('notification', (message) => {
      if (channels.includes(message.channel)) onNotify(message.payload ?? '', message.channel);
    });
    try {
      await next.connect();
      await next.query(channels.map((c) => `listen ${c}`).join('; '));
    } catch (error) {
      lost = true;
      next.end().catch(() => {});
      throw error;
    }
    if (closed) {
      lost = true;
      await next.end().catch(() => {});
      return;
    }
    client = next;
    delay = firstDelay;
  };

  const scheduleReconnect = () => {
    timer = setTimeout(() => {
      timer = undefined;
      connect().then(
        () => {
          if (!closed) options.onConnectionChange?.(true);
        },
        () => {
          if (closed) return;
          delay = Math.min(delay * 2, 5_000);
          scheduleReconnect();
        },
      );
    }, delay);
    timer.unref();
  };

  await connect();
  return {
    async notify(to, payload) {
      if (!client) throw new Error('the listening connection is down');
      await client.query('select pg_notify($1, $2)', [to, payload]);
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer) clearTimeout(timer);
      const current = client;
      client = undefined;
      await current?.end().catch(() => {});
    },
  };
}
