import { randomBytes } from 'node:crypto';

/** One delivery kept for replay: the relay message as sent (`data:` of its SSE event). */
export interface KeptDelivery {
  /** SSE event id: increases per channel, never reused (also for redeliveries). */
  seq: number;
  /** The relay message JSON text. */
  message: string;
  bytes: number;
  receivedAt: number;
  event: string;
  deliveryId: string;
  /** `seq` of the delivery this one redelivers. */
  redeliveryOf?: number;
}

/** A connected SSE client, as the channel sees it. */
export interface ChannelClient {
  send(delivery: KeptDelivery): void;
  close(): void;
}

export interface Channel {
  readonly id: string;
  /** The client that created it (its address, or what `clientId` returned). */
  readonly owner: string;
  readonly createdAt: number;
  lastSeq: number;
  /** Oldest first. */
  deliveries: KeptDelivery[];
  bytes: number;
  clients: Set<ChannelClient>;
  lastActiveAt: number;
}

export interface ChannelLimits {
  maxChannels: number;
  /** Open channels one client (`Channel.owner`) may hold. */
  maxChannelsPerClient: number;
  /** Deliveries kept per channel for replay. */
  maxDeliveriesPerChannel: number;
  /** Bytes of kept deliveries per channel. */
  maxChannelBytes: number;
  /** Bytes of kept deliveries over all channels. */
  maxTotalBytes: number;
}

/** 128 random bits as base64url: 22 characters. */
export const CHANNEL_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/**
 * The relay's channels and their replay buffers, within count and byte bounds: a channel keeps
 * its newest deliveries; when all channels together exceed `maxTotalBytes`, the oldest kept
 * deliveries of any channel go first. Deliveries are streamed even when too large to keep.
 *
 * @example
 * ```ts
 * const channels = createRelayChannels(limits);
 * const channel = channels.create();
 * if (channel) channels.publish(channel, { event: 'push', deliveryId: 'd1', message });
 * ```
 */
export function createRelayChannels(limits: ChannelLimits) {
  const channels = new Map<string, Channel>();
  const perOwner = new Map<string, number>();
  // Every kept delivery in arrival order, for global eviction. Entries of deliveries already
  // dropped by their channel are skipped, and compacted away before they outnumber the kept.
  let arrival: Array<{ channel: Channel; delivery: KeptDelivery }> = [];
  let arrivalHead = 0;
  const kept = new Set<KeptDelivery>();
  let totalBytes = 0;

  const dropOldest = (channel: Channel): void => {
    const dropped = channel.deliveries.shift();
    if (dropped === undefined) return;
    kept.delete(dropped);
    channel.bytes -= dropped.bytes;
    totalBytes -= dropped.bytes;
  };

  const evictGlobally = (): void => {
    while (totalBytes > limits.maxTotalBytes && arrivalHead < arrival.length) {
      const entry = arrival[arrivalHead++];
      if (entry === undefined) break;
      // A channel keeps arrival order, so a still-kept entry is its channel's oldest.
      if (kept.has(entry.delivery)) dropOldest(entry.channel);
    }
    if (arrival.length - arrivalHead > 2 * kept.size + 1024) {
      arrival = arrival.slice(arrivalHead).filter((entry) => kept.has(entry.delivery));
      arrivalHead = 0;
    }
  };

  return {
    get size() {
      return channels.size;
    },
    get totalBytes() {
      return totalBytes;
    },
    /** Deliveries kept over all channels, and the eviction queue's length (bounded by them). */
    get tracked() {
      return { kept: kept.size, queued: arrival.length - arrivalHead };
    },
    /** Why `owner` may not create a channel now, or `undefined` when it may. */
    refusal(owner: string): 'client' | 'total' | undefined {
      if ((perOwner.get(owner) ?? 0) >= limits.maxChannelsPerClient) return 'client';
      if (channels.size >= limits.maxChannels) return 'total';
      return undefined;
    },
    /** A new channel with an unguessable id, or `undefined` when `refusal(owner)` says no. */
    create(owner = ''): Channel | undefined {
      if (this.refusal(owner) !== undefined) return undefined;
      let id: string;
      do id = randomBytes(16).toString('base64url');
      while (channels.has(id));
      const now = Date.now();
      const channel: Channel = {
        id,
        owner,
        createdAt: now,
        lastSeq: 0,
        deliveries: [],
        bytes: 0,
        clients: new Set(),
        lastActiveAt: now,
      };
      channels.set(id, channel);
      perOwner.set(owner, (perOwner.get(owner) ?? 0) + 1);
      return channel;
    },
    get(id: string): Channel | undefined {
      return channels.get(id);
    },
    /** Keeps (within bounds) and streams one delivery to every connected client. */
    publish(
      channel: Channel,
      entry: Pick<KeptDelivery, 'message' | 'event' | 'deliveryId' | 'redeliveryOf'>,
    ): KeptDelivery {
      const delivery: KeptDelivery = {
        ...entry,
        seq: ++channel.lastSeq,
        bytes: Buffer.byteLength(entry.message),
        receivedAt: Date.now(),
      };
      channel.lastActiveAt = delivery.receivedAt;
      if (delivery.bytes <= limits.maxChannelBytes && delivery.bytes <= limits.maxTotalBytes) {
        channel.deliveries.push(delivery);
        kept.add(delivery);
        channel.bytes += delivery.bytes;
        totalBytes += delivery.bytes;
        arrival.push({ channel, delivery });
        while (
          channel.deliveries.length > limits.maxDeliveriesPerChannel ||
          channel.bytes > limits.maxChannelBytes
        ) {
          dropOldest(channel);
        }
        evictGlobally();
      }
      for (const client of [...channel.clients]) client.send(delivery);
      return delivery;
    },
    /** Kept deliveries after `seq` (for `Last-Event-ID` resume), oldest first. */
    since(channel: Channel, seq: number): KeptDelivery[] {
      return channel.deliveries.filter((delivery) => delivery.seq > seq);
    },
    find(channel: Channel, seq: number): KeptDelivery | undefined {
      return channel.deliveries.find((delivery) => delivery.seq === seq);
    },
    /** Removes a channel, closing its streams and freeing its kept deliveries. */
    remove(channel: Channel): void {
      if (channels.get(channel.id) !== channel) return;
      channels.delete(channel.id);
      const owned = (perOwner.get(channel.owner) ?? 1) - 1;
      if (owned > 0) perOwner.set(channel.owner, owned);
      else perOwner.delete(channel.owner);
      for (const client of [...channel.clients]) client.close();
      while (channel.deliveries.length > 0) dropOldest(channel);
    },
    /** Removes channels with no client and no delivery for `idleMs`. */
    removeIdle(idleMs: number, now = Date.now()): number {
      let removed = 0;
      for (const channel of [...channels.values()]) {
        if (channel.clients.size === 0 && now - channel.lastActiveAt >= idleMs) {
          this.remove(channel);
          removed++;
        }
      }
      return removed;
    },
    all(): IterableIterator<Channel> {
      return channels.values();
    },
  };
}

export type RelayChannels = ReturnType<typeof createRelayChannels>;
