import type { Database } from '@sluice/db';
import {
  parseStoreChange,
  STORE_CHANGED_CHANNEL,
  type StoreChange,
} from '../../changes/store-change.js';

/** Callbacks a change transport delivers to. */
export interface StoreChangeHandlers {
  /** One notification payload, as published (see src/changes/store-change.ts). */
  onPayload(payload: string): void;
  /**
   * `false` when delivery stopped (changes may be missed from now on), `true` once it resumed
   * (changes may have been missed meanwhile).
   */
  onConnectionChange(connected: boolean): void;
}

/**
 * How notifications reach this process: LISTEN on the primary by default; another transport
 * (Redis pub/sub, a primary connection beside read replicas) plugs in here. Resolves once
 * delivery runs; `close` stops it.
 */
export type SubscribeStoreChanges = (handlers: StoreChangeHandlers) => Promise<{
  close(): Promise<void>;
  /** Whether delivery runs now (default true); later changes come through `onConnectionChange`. */
  connected?: boolean;
}>;

/**
 * `LISTEN sluice_store_changed` on the store's own database (a dedicated connection that
 * reconnects, reporting the gaps).
 */
export function listenOnDatabase(db: Database): SubscribeStoreChanges {
  return (handlers) =>
    db.listen(STORE_CHANGED_CHANNEL, handlers.onPayload, {
      onConnectionChange: handlers.onConnectionChange,
    });
}

/** What `subscribeToFeed` needs of a change feed (src/change-feed's `ChangeFeed` has it). */
export interface PayloadFeed {
  readonly connected: boolean;
  subscribe(handlers: {
    onChange(change: { channel: string; payload: string }): void;
    onConnectionChange?(connected: boolean): void;
  }): () => void;
}

/**
 * The store-change payloads of a feed that carries several channels (the primary's LISTEN or
 * the Redis relay of a replicas deployment), as a `SubscribeStoreChanges`.
 *
 * @example
 * await startResponseCache(readDb, config, subscribeToFeed(feed));
 */
export function subscribeToFeed(feed: PayloadFeed): SubscribeStoreChanges {
  return async (handlers) => {
    const unsubscribe = feed.subscribe({
      onChange(change) {
        if (change.channel === STORE_CHANGED_CHANNEL) handlers.onPayload(change.payload);
      },
      onConnectionChange: (connected) => handlers.onConnectionChange(connected),
    });
    return { connected: feed.connected, close: async () => unsubscribe() };
  };
}

export interface StoreChangeFeed {
  /** False while changes may be going unnoticed (callers bypass their caches). */
  following(): boolean;
  close(): Promise<void>;
}

export interface FollowOptions {
  /** The store's schema: changes of other schemas in the same database are ignored. */
  schema: string;
  subscribe: SubscribeStoreChanges;
  /** A change of this store, parsed. */
  onChange(change: StoreChange): void;
  /** Changes may have been missed (delivery resumed after a gap): forget what depends on them. */
  onReset(): void;
}

/**
 * Follows the store's change notifications, whichever process wrote: the indexer, pricing, the
 * NFT worker or a manual fix.
 *
 * @example
 * const feed = await followStoreChanges({ schema, subscribe, onChange: drop, onReset: clear });
 * if (!feed.following()) bypass();
 */
export async function followStoreChanges(opts: FollowOptions): Promise<StoreChangeFeed> {
  let connected = true;
  let subscribed = false;
  const subscription = await opts.subscribe({
    onPayload(payload) {
      const change = parseStoreChange(payload);
      // An unreadable payload (no schema) may be ours.
      if (change.schema === undefined || change.schema === opts.schema) opts.onChange(change);
    },
    onConnectionChange(up) {
      connected = up;
      if (subscribed || up) opts.onReset();
    },
  });
  subscribed = true;
  connected = subscription.connected ?? connected;
  return { following: () => connected, close: () => subscription.close() };
}
