import { connect, createServer, type Server, type Socket } from 'node:net';
import { type Database, openDatabase } from '@sluice/db';
import { testDatabaseUrl } from '@sluice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeaderLock, LeadershipLostError } from './leader-lock.js';

/** A TCP proxy to PostgreSQL that can freeze (stop forwarding) its connections. */
let proxy: Server;
let port = 0;
const sockets: Socket[] = [];
const target = new URL(testDatabaseUrl());

beforeAll(async () => {
  proxy = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    sockets.push(client, upstream);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  port = (proxy.address() as { port: number }).port;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => proxy.close(() => r()));
});

/** Just enough of a Database for the lock: its pool's connection options. */
function dbVia(url: string): Database {
  return {
    kind: 'postgres',
    pgPool: { options: { connectionString: url } },
  } as unknown as Database;
}

describe('leader lock on PostgreSQL', () => {
  it('a terminated lock session: held() turns false, onLost fires once, writes are fenced', async () => {
    const lock = createLeaderLock(dbVia(testDatabaseUrl()), 987_654_321, 60_000);
    const reasons: string[] = [];
    lock.onLost((r) => reasons.push(r));
    const admin = await openDatabase({ url: testDatabaseUrl(), max: 1 });
    try {
      expect(await lock.tryAcquire()).toBe(true);
      await expect(lock.assertHeld(admin)).resolves.toBeUndefined();
      const { rows } = await admin.query<{ pid: number }>(
        `select pid from pg_locks where locktype = 'advisory' and objid = 987654321 and granted`,
      );
      await admin.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
      for (let i = 0; i < 200 && lock.held(); i++) await new Promise((r) => setTimeout(r, 10));
      expect(lock.held()).toBe(false);
      expect(reasons).toHaveLength(1);
      await expect(lock.assertHeld(admin)).rejects.toBeInstanceOf(LeadershipLostError);
      expect(await lock.tryAcquire()).toBe(true); // free again: may be re-acquired
    } finally {
      await lock.release();
      await admin.close();
    }
  });

  it('a frozen lock connection: the unanswered heartbeat counts as lost', async () => {
    const url = new URL(testDatabaseUrl());
    url.hostname = '127.0.0.1';
    url.port = String(port);
    const lock = createLeaderLock(dbVia(url.toString()), 987_654_322, 50);
    const reasons: string[] = [];
    lock.onLost((r) => reasons.push(r));
    expect(await lock.tryAcquire()).toBe(true);
    for (const s of sockets) s.pause(); // nothing flows any more, nothing errors either
    for (let i = 0; i < 200 && lock.held(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(lock.held()).toBe(false);
    expect(reasons).toEqual(['lock heartbeat unanswered']);
    for (const s of sockets) s.destroy();
    await lock.release();
  });
});
