import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeedMessage } from './change-feed.js';
import { readStartedAfter } from './coalesced.js';
import { FenceMarkers } from './fence-markers.js';
import { formatLsn, parseLsn } from './lsn.js';
import { listenChangeFeed } from './postgres-change-feed.js';
import { redisChangeFeed, startChangeRelay } from './redis-change-feed.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function until(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('WAL positions', () => {
  it('parses and prints pg_lsn text, ordered as numbers', () => {
    expect(formatLsn(parseLsn('16/B374D848'))).toBe('16/B374D848');
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
    for (const bad of ['', '0', '0/', 'x/1', '1/2/3', '123456789/0']) {
      expect(() => parseLsn(bad)).toThrow(/not a WAL position/);
    }
  });

  it('readStartedAfter: callers during a run share the next run, never the one already running', async () => {
    let runs = 0;
    const gates: (() => void)[] = [];
    const read = readStartedAfter(async () => {
      const n = ++runs;
      await new Promise<void>((resolve) => gates.push(resolve));
      return n;
    });
    const first = read();
    const later = [read(), read(), read()];
    expect(runs).toBe(1);
    gates.shift()!();
    expect(await first).toBe(1);
    await until('the queued run', () => runs === 2);
    gates.shift()!();
    expect(await Promise.all(later)).toEqual([2, 2, 2]);
  });
});

describe('fence markers', () => {
  it('a marker that never comes back: false after the timeout, then at once for as long', async () => {
    const sent: string[] = [];
    let answer = false;
    const markers = new FenceMarkers(async (id) => {
      sent.push(id);
      if (answer) setTimeout(() => markers.arrived(id), 1);
    }, 150);
    let t0 = Date.now();
    expect(await markers.sync()).toBe(false);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    t0 = Date.now();
    expect(await markers.sync()).toBe(false); // cooling off: no marker, no wait
    expect(Date.now() - t0).toBeLessThan(50);
    expect(sent).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    answer = true;
    expect(await markers.sync()).toBe(true);
    expect(sent).toHaveLength(2);
    // Someone else's marker id is not ours; a failing send is false, not a throw.
    expect(markers.owns('someone-else-1')).toBe(false);
    const broken = new FenceMarkers(async () => {
      throw new Error('down');
    }, 5_000);
    expect(await broken.sync()).toBe(false);
  });
});

describe('change feeds', () => {
  let t: TestDatabase;
  let redis: Redis;

  beforeAll(async () => {
    t = await createTestDatabase('postgres');
    redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
  });
  afterAll(async () => {
    redis?.disconnect();
    await t?.drop();
  });

  it('LISTEN on the primary: each change carries a flushed position at or past its commit', async () => {
    const feed = await listenChangeFeed(t.db, { withLsn: true });
    const changes: FeedMessage[] = [];
    feed.subscribe({ onChange: (c) => changes.push(c) });
    try {
      const { rows } = await t.db.query<{ lsn: string }>(
        `select pg_current_wal_lsn()::text as lsn, pg_notify('sluice_store_changed', 'feed-test')`,
      );
      await until('the change', () => changes.length > 0);
      const [change] = changes;
      expect(change).toMatchObject({ channel: 'sluice_store_changed', payload: 'feed-test' });
      expect(change!.lsn! >= parseLsn(rows[0]!.lsn)).toBe(true);
      const { rows: flushed } = await t.db.query<{ lsn: string }>(
        'select pg_current_wal_flush_lsn()::text as lsn',
      );
      expect(parseLsn(flushed[0]!.lsn) >= change!.lsn!).toBe(true);
    } finally {
      await feed.close();
    }
  });

  it('sync(): a marker through the primary comes back behind every change committed before', async () => {
    const feed = await listenChangeFeed(t.db, { withLsn: true, fenceTimeoutMs: 10_000 });
    const other = await listenChangeFeed(t.db, { withLsn: false, fenceTimeoutMs: 10_000 });
    const seen: string[] = [];
    const otherSeen: string[] = [];
    feed.subscribe({ onChange: (c) => seen.push(c.payload) });
    other.subscribe({ onChange: (c) => otherSeen.push(c.payload) });
    try {
      for (let round = 0; round < 20; round++) {
        await t.db.query(`select pg_notify('sluice_store_changed', $1)`, [`c${round}`]);
        // No waiting between commit and sync: the change must already be delivered.
        expect(await feed.sync()).toBe(true);
        expect(seen.at(-1)).toBe(`c${round}`);
      }
      // A thousand concurrent callers share markers.
      const results = await Promise.all(Array.from({ length: 1_000 }, () => other.sync()));
      expect(results.every(Boolean)).toBe(true);
      // Markers are private: neither feed delivers the other's as a change.
      expect(seen.every((p) => p.startsWith('c'))).toBe(true);
      expect(otherSeen.every((p) => p.startsWith('c'))).toBe(true);
    } finally {
      await feed.close();
      await other.close();
    }
    expect(await feed.sync()).toBe(false); // closed: no hang
  });

  it('Redis relay: changes arrive in order with positions; a silent relay reads as down', async () => {
    const channel = `sluice:test:${randomBytes(6).toString('hex')}`;
    const relay = await startChangeRelay({ primary: t.db, redis, channel, heartbeatMs: 100 });
    const feed = await redisChangeFeed(redis, channel, {
      staleAfterMs: 500,
      fenceTimeoutMs: 10_000,
    });
    const impatient = await redisChangeFeed(redis, channel, { fenceTimeoutMs: 300 });
    const changes: FeedMessage[] = [];
    const states: boolean[] = [];
    feed.subscribe({
      onChange: (c) => changes.push(c),
      onConnectionChange: (up) => states.push(up),
    });
    try {
      await until('the first heartbeat', () => feed.connected);
      for (const payload of ['a', 'b', 'c']) {
        await t.db.query(`select pg_notify('sluice_store_changed', $1)`, [payload]);
      }
      await until('three changes', () => changes.length === 3);
      expect(changes.map((c) => c.payload)).toEqual(['a', 'b', 'c']);
      for (let i = 1; i < changes.length; i++) {
        expect(changes[i]!.lsn! >= changes[i - 1]!.lsn!).toBe(true);
      }
      // A fence goes through the relay and the primary: behind every earlier change.
      for (let round = 0; round < 10; round++) {
        await t.db.query(`select pg_notify('sluice_store_changed', $1)`, [`f${round}`]);
        expect(await feed.sync()).toBe(true);
        expect(changes.at(-1)?.payload).toBe(`f${round}`);
      }
      // Not ours: ignored, no crash.
      await redis.publish(channel, 'not json');
      await redis.publish(channel, JSON.stringify({ kind: 'fence', ids: 'nope' }));
      await until('the impatient feed to hear the relay', () => impatient.connected);
      await relay.close();
      // No relay answers: false after the fence timeout, not a hang.
      const t0 = Date.now();
      expect(await impatient.sync()).toBe(false);
      expect(Date.now() - t0).toBeLessThan(5_000);
      await until('the feed to report the silence', () => !feed.connected, 3_000);
      expect(states).toEqual([true, false]);
    } finally {
      await relay.close();
      await feed.close();
      await impatient.close();
    }
  });
});
