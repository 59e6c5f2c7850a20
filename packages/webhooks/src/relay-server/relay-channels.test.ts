import { describe, expect, it } from 'vitest';
import { createRelayChannels } from './relay-channels.js';

const limits = {
  maxChannels: 10,
  maxChannelsPerClient: 10,
  maxDeliveriesPerChannel: 3,
  maxChannelBytes: 1000,
  maxTotalBytes: 2000,
};

function publish(channels: ReturnType<typeof createRelayChannels>, n: number, bytes = 10) {
  const channel = channels.create();
  if (channel === undefined) throw new Error('no channel');
  for (let i = 0; i < n; i++) {
    channels.publish(channel, { message: 'm'.repeat(bytes), event: 'push', deliveryId: `${i}` });
  }
  return channel;
}

describe('createRelayChannels', () => {
  it('keeps the newest deliveries per channel, with increasing ids', () => {
    const channels = createRelayChannels(limits);
    const channel = publish(channels, 5);
    expect(channel.deliveries.map((delivery) => delivery.seq)).toEqual([3, 4, 5]);
    expect(channels.since(channel, 3).map((delivery) => delivery.seq)).toEqual([4, 5]);
    expect(channels.totalBytes).toBe(30);
  });

  it('bounds its bookkeeping when only per-channel limits evict', () => {
    const channels = createRelayChannels(limits);
    publish(channels, 20_000);
    expect(channels.tracked.kept).toBe(3);
    expect(channels.tracked.queued).toBeLessThanOrEqual(2 * 3 + 1024);
  });

  it('evicts the oldest deliveries of any channel past the total bound', () => {
    const channels = createRelayChannels({ ...limits, maxChannelBytes: 2000 });
    const first = publish(channels, 3, 600);
    const second = publish(channels, 2, 600);
    expect(channels.totalBytes).toBeLessThanOrEqual(2000);
    expect(first.deliveries.map((delivery) => delivery.seq)).toEqual([3]);
    expect(second.deliveries).toHaveLength(2);
  });

  it('streams but does not keep a delivery larger than a channel may hold', () => {
    const channels = createRelayChannels(limits);
    const channel = publish(channels, 1, 1500);
    expect(channel.deliveries).toEqual([]);
    expect(channel.lastSeq).toBe(1);
    expect(channels.totalBytes).toBe(0);
  });

  it('removing a channel frees its bytes; idle channels expire', () => {
    const channels = createRelayChannels(limits);
    const channel = publish(channels, 2);
    channels.remove(channel);
    expect(channels.get(channel.id)).toBeUndefined();
    expect(channels.totalBytes).toBe(0);
    const idle = publish(channels, 0);
    expect(channels.removeIdle(60_000, Date.now() + 61_000)).toBe(1);
    expect(channels.get(idle.id)).toBeUndefined();
  });

  it('refuses channels past maxChannels', () => {
    const channels = createRelayChannels({ ...limits, maxChannels: 2 });
    expect(channels.create()).toBeDefined();
    expect(channels.create()).toBeDefined();
    expect(channels.create()).toBeUndefined();
  });

  it('refuses a client past maxChannelsPerClient, and counts a removed channel back', () => {
    const channels = createRelayChannels({ ...limits, maxChannelsPerClient: 2 });
    const first = channels.create('10.0.0.1');
    expect(channels.create('10.0.0.1')).toBeDefined();
    expect(channels.refusal('10.0.0.1')).toBe('client');
    expect(channels.create('10.0.0.1')).toBeUndefined();
    expect(channels.create('10.0.0.2')).toBeDefined();
    if (first) channels.remove(first);
    expect(channels.create('10.0.0.1')).toBeDefined();
  });
});
