import { randomBytes } from 'node:crypto';
import type { Database } from '@sluice/db';
import { BaseError } from '../errors/index.js';
import { type ChangeFeed, changeChannels, FeedHub } from './change-feed.js';
import { readStartedAfter } from './coalesced.js';
import { FenceMarkers } from './fence-markers.js';
import { flushedPrimaryPosition } from './lsn.js';

export interface PostgresChangeFeedOptions {
  /** Default `changeChannels`. */
  channels?: readonly string[];
  /** Attach the primary's WAL position to each change (needed to gate standby reads). */
  withLsn?: boolean;
  /** Retry delay of a failed position read (ms, default 250). */
  retryMs?: number;
  /** Longest `sync()` waits for its marker (ms, default 500). */
  fenceTimeoutMs?: number;
}

/**
 * `LISTEN` on the primary (a standby cannot LISTEN): one dedicated connection for every channel
 * and this feed's own marker channel, so notifications arrive in commit order and a marker
 * (`sync()`) comes back behind every change committed before it. With `withLsn`, each change is
 * delivered with the primary's position read (and flushed, see `flushedPrimaryPosition`) after
 * it arrived, so at or past its commit; a burst of notifications shares one read, and
 * deliveries keep their order. A failed read reports the feed down (callers bypass caches) and
 * is retried.
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
  const fenceChannel = `sluice_fence_${randomBytes(8).toString('hex')}`;
  let closed = false;
  let pending: { channel: string; payload: string }[] = [];
  let tail: Promise<void> = Promise.resolve();
  let listening = true;
  let positionFailed = false;

  /** The primary's position, retried while the primary does not answer (feed down meanwhile). */
  const readLsn = async (): Promise<bigint | undefined> => {
    for (;;) {
      try {
        const lsn = await position();
        if (positionFailed && !closed) {
          positionFailed = false;
          if (listening) hub.connection(true, lsn);
        }
        return lsn;
      } catch {
        if (closed) return undefined;
        positionFailed = true;
        hub.connection(false, undefined);
        markers.failAll();
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
  // Assigned before any marker can be sent (sync needs the listener).
  let listener: Awaited<ReturnType<Database['listen']>> | undefined;
  const markers = new FenceMarkers(async (id) => {
    if (!listener || !hub.connected)
      throw new BaseError('change feed down', { code: 'CHANGE_FEED_DOWN' });
    await listener.notify(fenceChannel, id);
  }, opts.fenceTimeoutMs ?? 500);

  listener = await db.listen(
    [...channels, fenceChannel],
    (payload, channel) => {
      if (channel === fenceChannel) {
        // Behind every change that arrived before it.
        if (opts.withLsn) tail = tail.then(() => markers.arrived(payload));
        else markers.arrived(payload);
        return;
      }
      if (!opts.withLsn) {
        hub.change({ channel, payload, lsn: undefined });
        return;
      }
      pending.push({ channel, payload });
      tail = tail.then(deliver);
    },
    {
      onConnectionChange(connected) {
        listening = connected;
        if (!connected) {
          hub.connection(false, undefined);
          markers.failAll();
          return;
        }
        if (!opts.withLsn) {
          hub.connection(true, undefined);
          return;
        }
        // Whatever was missed is at or before the position now.
        tail = tail.then(async () => {
          const lsn = await readLsn();
          if (!closed && listening) hub.connection(true, lsn);
        });
      },
    },
  );
  return {
    get connected() {
      return hub.connected;
    },
    sync: () => (hub.connected ? markers.sync() : Promise.resolve(false)),
    subscribe: (handlers) => hub.subscribe(handlers),
    async close() {
      closed = true;
      markers.failAll();
      await listener?.close();
    },
  };
}
