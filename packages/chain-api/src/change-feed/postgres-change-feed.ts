import type { Database } from '@sluice/db';
import { readStartedAfter } from '../replicas/coalesced.js';
import { flushedPrimaryPosition } from '../replicas/lsn.js';
import { type ChangeFeed, changeChannels, FeedHub } from './change-feed.js';

export interface PostgresChangeFeedOptions {
  /** Default `changeChannels`. */
  channels?: readonly string[];
  /** Attach the primary's WAL position to each change (needed to gate standby reads). */
  withLsn?: boolean;
  /** Retry delay of a failed position read (ms, default 250). */
  retryMs?: number;
}

/**
 * `LISTEN` on the primary (a standby cannot LISTEN): one dedicated connection per channel. With
 * `withLsn`, each change is delivered with the primary's position read (and flushed, see
 * `flushedPrimaryPosition`) after it arrived, so at or past its commit; a burst of notifications shares one read, and deliveries keep their
 * order. A failed read reports the feed down (callers bypass caches) and is retried.
 *
 * @example
 * const feed = await listenChangeFeed(primary, { withLsn: true });
 * feed.subscribe({ onChange: ({ payload, lsn }) => invalidate(payload, lsn) });
 */
export async function listenChangeFeed(
  db: Database,
  opts: PostgresChangeFeedOptions = {},
): Promise<ChangeFeed> {
  const hub = new FeedHub(true);
  const retryMs = opts.retryMs ?? 250;
  const position = readStartedAfter(() => flushedPrimaryPosition(db));
  let closed = false;
  let pending: { channel: string; payload: string }[] = [];
  let tail: Promise<void> = Promise.resolve();
  const up = new Set<string>();
  let positionFailed = false;

  /** The primary's position, retried while the primary does not answer (feed down meanwhile). */
  const readLsn = async (): Promise<bigint | undefined> => {
    for (;;) {
      try {
        const lsn = await position();
        if (positionFailed && !closed) {
          positionFailed = false;
          if (up.size === channels.length) hub.connection(true, lsn);
        }
        return lsn;
      } catch {
        if (closed) return undefined;
        positionFailed = true;
        hub.connection(false, undefined);
        await new Promise((resolve) => setTimeout(resolve, retryMs));
      }
    }
  };

  const deliver = async () => {
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    const lsn = await readLsn();
    if (closed) return;
    for (const { channel, payload } of batch) hub.change({ channel, payload, lsn });
  };

  const channels = opts.channels ?? changeChannels;
  const listeners = await Promise.all(
    channels.map((channel) =>
      db.listen(
        channel,
        (payload) => {
          if (!opts.withLsn) {
            hub.change({ channel, payload, lsn: undefined });
            return;
          }
          pending.push({ channel, payload });
          tail = tail.then(deliver);
        },
        {
          onConnectionChange(connected) {
            if (connected) up.add(channel);
            else up.delete(channel);
            if (!connected) {
              hub.connection(false, undefined);
              return;
            }
            if (up.size < channels.length) return;
            if (!opts.withLsn) {
              hub.connection(true, undefined);
              return;
            }
            // Whatever was missed is at or before the position now.
            tail = tail.then(async () => {
              const lsn = await readLsn();
              if (!closed && up.size === channels.length) hub.connection(true, lsn);
            });
          },
        },
      ),
    ),
  );
  for (const channel of channels) up.add(channel);
  return {
    get connected() {
      return hub.connected;
    },
    subscribe: (handlers) => hub.subscribe(handlers),
    async close() {
      closed = true;
      await Promise.all(listeners.map((listener) => listener.close()));
    },
  };
}
