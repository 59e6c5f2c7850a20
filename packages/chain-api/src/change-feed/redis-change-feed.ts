import type { Database } from '@sluice/db';
import type { Redis } from 'ioredis';
import { type ChangeFeed, FeedHub } from './change-feed.js';
import { FenceMarkers } from './fence-markers.js';
import { flushedPrimaryPosition, formatLsn, parseLsn } from './lsn.js';
import { listenChangeFeed } from './postgres-change-feed.js';

/**
 * What the relay publishes (JSON): changes, a heartbeat, "anything may have changed", and the
 * answer to fence requests (markers that went through the primary behind earlier changes).
 */
type RelayMessage =
  | { kind: 'change'; channel: string; payload: string; lsn: string }
  | { kind: 'heartbeat'; lsn: string }
  | { kind: 'reset'; lsn: string }
  | { kind: 'fence'; ids: string[] };

/** Where API processes ask the relays for a fence (see `ChangeFeed.sync`). */
const fenceRequests = (channel: string) => `${channel}:fence`;

/**
 * The Redis channel of a database: its cluster's system identifier (the same on its standbys)
 * and name, so deployments sharing a Redis never hear each other's changes.
 *
 * @example
 * const channel = await redisChangeChannel(primary); // 'sluice:changes:7311...:chain'
 */
export async function redisChangeChannel(db: Database): Promise<string> {
  const { rows } = await db.query<{ id: string; name: string }>(
    'select (select system_identifier::text from pg_control_system()) as id, current_database() as name',
  );
  return `sluice:changes:${rows[0]!.id}:${rows[0]!.name}`;
}

export interface ChangeRelay {
  close(): Promise<void>;
}

/**
 * Runs next to the indexer (whose process writes most changes, though any writer's triggers are
 * heard): LISTENs on the primary and publishes every change with the primary's position to
 * Redis, so API processes need no connection to the primary to hear of batches. A heartbeat
 * every `heartbeatMs` tells subscribers the relay is alive; after anything may have been lost
 * (a failed publish, the LISTEN connection dropping) the next message is a `reset`.
 *
 * @example
 * const relay = await startChangeRelay({ primary, redis, channel: await redisChangeChannel(primary) });
 */
export async function startChangeRelay(opts: {
  primary: Database;
  redis: Redis;
  channel: string;
  heartbeatMs?: number;
}): Promise<ChangeRelay> {
  const { primary, redis, channel } = opts;
  const feed = await listenChangeFeed(primary, { withLsn: true });
  let lost = true;
  let tail: Promise<void> = Promise.resolve();
  const send = (message: RelayMessage) => {
    tail = tail.then(async () => {
      try {
        if (lost) {
          // A fence answer cannot vouch for changes lost before it: no reset yet, no answer.
          if (message.kind === 'fence') return;
          await redis.publish(channel, JSON.stringify({ kind: 'reset', lsn: message.lsn }));
          lost = false;
        }
        await redis.publish(channel, JSON.stringify(message));
      } catch {
        lost = true;
      }
    });
  };
  // Fence requests: one marker through the primary answers every request that came before it
  // was sent; the answer is published behind the changes the marker came back behind.
  const requests = redis.duplicate({ lazyConnect: true, enableOfflineQueue: true });
  requests.on('error', () => {}); // reconnects on its own; requesters time out meanwhile
  let asked: string[] = [];
  let answering = false;
  const answer = async () => {
    answering = true;
    while (asked.length > 0) {
      // Only requests that arrived before the marker is sent: later ones wait for the next.
      const ids = asked;
      asked = [];
      if (await feed.sync()) send({ kind: 'fence', ids });
    }
    answering = false;
  };
  requests.on('message', (from: string, id: string) => {
    if (from !== fenceRequests(channel) || id.length > 64) return;
    asked.push(id);
    if (!answering) void answer();
  });
  requests.connect().catch(() => {});
  requests.subscribe(fenceRequests(channel)).catch(() => {});
  const unsubscribe = feed.subscribe({
    onChange({ channel: source, payload, lsn }) {
      send({ kind: 'change', channel: source, payload, lsn: formatLsn(lsn ?? 0n) });
    },
    onConnectionChange(connected, lsn) {
      lost = true;
      if (connected && lsn !== undefined) send({ kind: 'heartbeat', lsn: formatLsn(lsn) });
    },
  });
  const beat = setInterval(() => {
    if (!feed.connected) return; // silence: subscribers stop trusting the feed
    flushedPrimaryPosition(primary).then(
      (lsn) => send({ kind: 'heartbeat', lsn: formatLsn(lsn) }),
      () => {},
    );
  }, opts.heartbeatMs ?? 1_000);
  beat.unref();
  return {
    async close() {
      clearInterval(beat);
      unsubscribe();
      requests.disconnect();
      await feed.close();
      await tail;
    },
  };
}

/**
 * The API side of the relay: a subscriber connection (a duplicate of `redis`). Connected while
 * the relay's heartbeats arrive; silent for `staleAfterMs`, or the subscription dropping, means
 * changes may be missed (callers bypass caches) until messages flow again.
 *
 * @example
 * const feed = await redisChangeFeed(redis, await redisChangeChannel(primary));
 */
export async function redisChangeFeed(
  redis: Redis,
  channel: string,
  opts: { staleAfterMs?: number; fenceTimeoutMs?: number } = {},
): Promise<ChangeFeed> {
  const staleAfterMs = opts.staleAfterMs ?? 3_000;
  const hub = new FeedHub(false);
  const markers = new FenceMarkers(async (id) => {
    await redis.publish(fenceRequests(channel), id);
  }, opts.fenceTimeoutMs ?? 500);
  // Its SUBSCRIBE waits for the connection (queued, no command timeout: 0 would time out at once).
  const sub = redis.duplicate({
    lazyConnect: true,
    enableOfflineQueue: true,
    commandTimeout: undefined,
  });
  sub.on('error', () => {}); // reconnects on its own; the silence check reports the outage
  let heardAt = 0;
  sub.on('message', (from: string, text: string) => {
    if (from !== channel) return;
    let message: RelayMessage;
    let lsn: bigint;
    try {
      message = JSON.parse(text) as RelayMessage;
      if (message.kind === 'fence') {
        // Handled in order: every change published before it was delivered already.
        if (hub.connected && Array.isArray(message.ids)) {
          for (const id of message.ids) if (markers.owns(String(id))) markers.arrived(String(id));
        }
        return;
      }
      lsn = parseLsn(message.lsn);
    } catch {
      return; // not ours
    }
    heardAt = Date.now();
    if (message.kind === 'reset' && hub.connected) hub.connection(false, undefined);
    if (!hub.connected) hub.connection(true, lsn);
    if (message.kind === 'change') {
      hub.change({ channel: message.channel, payload: message.payload, lsn });
    }
  });
  sub.on('close', () => {
    hub.connection(false, undefined);
    markers.failAll();
  });
  const check = setInterval(
    () => {
      if (hub.connected && Date.now() - heardAt > staleAfterMs) {
        hub.connection(false, undefined);
        markers.failAll();
      }
    },
    Math.max(50, Math.floor(staleAfterMs / 4)),
  );
  check.unref();
  sub.connect().catch(() => {});
  // Queued until connected; ioredis subscribes again after every reconnect.
  sub.subscribe(channel).catch(() => {});
  return {
    get connected() {
      return hub.connected;
    },
    sync: () => (hub.connected ? markers.sync() : Promise.resolve(false)),
    subscribe: (handlers) => hub.subscribe(handlers),
    async close() {
      clearInterval(check);
      markers.failAll();
      sub.disconnect();
    },
  };
}
