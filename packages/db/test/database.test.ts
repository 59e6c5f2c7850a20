import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, sqlState } from '../src/index.js';
import { createTestDatabase, type TestDatabase } from '../src/testing.js';

describe.each(['postgres', 'pglite'] as const)('%s', (kind) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('runs parameterised queries and keeps int8/numeric exact', async () => {
    const { rows } = await t.db.query<{ big: string; num: string; n: number }>(
      'select $1::int8 as big, $2::numeric(78,0) as num, 1::int4 as n',
      [
        '9007199254740993',
        '115792089237316195423570985008687907853269984665640564039457584007913129639935',
      ],
    );
    expect(rows[0]).toEqual({
      big: '9007199254740993',
      num: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
      n: 1,
    });
  });

  it('applies migrations once, in order, and records them', async () => {
    const migrations = [
      { id: '001', sql: 'create table items (id int primary key, name text not null);' },
      { id: '002', sql: 'alter table items add column note text; create index on items (name);' },
    ];
    expect(await migrate(t.db, migrations)).toEqual(['001', '002']);
    expect(await migrate(t.db, migrations)).toEqual([]);
    const { rows } = await t.db.query<{ id: string }>(
      'select id from schema_migrations order by id',
    );
    expect(rows.map((r) => r.id)).toEqual(['001', '002']);
  });

  it('serializes concurrent migration runs', async () => {
    const migrations = [{ id: 'c1', sql: 'create table concurrent_once (x int);' }];
    const results = await Promise.all([migrate(t.db, migrations), migrate(t.db, migrations)]);
    expect(results.flat()).toEqual(['c1']);
  });

  it('rejects duplicate migration ids and bad table names', async () => {
    await expect(
      migrate(t.db, [
        { id: 'x', sql: 'select 1' },
        { id: 'x', sql: 'select 1' },
      ]),
    ).rejects.toThrow('Duplicate migration id');
    await expect(migrate(t.db, [], { table: 'bad; drop' })).rejects.toThrow(
      'Invalid migrations table',
    );
  });

  it('commits a transaction, and rolls back every statement when it throws', async () => {
    await t.db.transaction(async (tx) => {
      await tx.query('insert into items (id, name) values ($1, $2)', [1, 'a']);
      await tx.query('insert into items (id, name) values ($1, $2)', [2, 'b']);
    });
    await expect(
      t.db.transaction(async (tx) => {
        await tx.query('insert into items (id, name) values ($1, $2)', [3, 'c']);
        await tx.query('insert into items (id, name) values ($1, $2)', [1, 'duplicate']);
      }),
    ).rejects.toSatisfy((error) => sqlState(error) === '23505');
    const { rows } = await t.db.query<{ id: number }>('select id from items order by id');
    expect(rows.map((r) => r.id)).toEqual([1, 2]);
  });

  it('keeps queries from elsewhere out of an open transaction', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tx = t.db
      .transaction(async (q) => {
        await q.query('insert into items (id, name) values (10, $1)', ['in-tx']);
        await gate;
        throw new Error('abort');
      })
      .catch((error: Error) => error.message);
    const outside = t.db.query('insert into items (id, name) values (11, $1)', ['outside']);
    release();
    expect(await tx).toBe('abort');
    await outside;
    const { rows } = await t.db.query<{ id: number }>('select id from items where id >= 10');
    expect(rows.map((r) => r.id)).toEqual([11]);
  });

  it('reports rowCount for writes and pings', async () => {
    const { rowCount } = await t.db.query('update items set note = $1', ['n']);
    expect(rowCount).toBe(3);
    await expect(t.db.ping()).resolves.toBeUndefined();
  });

  it('hands child processes a connection that lands in the same schema', async () => {
    if (kind !== 'postgres') return;
    const other = await openDatabase({ url: t.url });
    try {
      const { rows } = await other.query<{ count: string }>('select count(*) as count from items');
      expect(rows[0]?.count).toBe('3');
    } finally {
      await other.close();
    }
  });

  it('delivers NOTIFY to listeners after commit, never for a rolled-back transaction', async () => {
    const channel = `chan_${Math.random().toString(36).slice(2, 10)}`;
    const got: string[] = [];
    const listener = await t.db.listen(channel, (payload) => got.push(payload));
    await t.db.query('select pg_notify($1, $2)', [channel, 'plain']);
    await t.db.transaction(async (tx) => {
      await tx.query('select pg_notify($1, $2)', [channel, 'committed']);
    });
    await t.db
      .transaction(async (tx) => {
        await tx.query('select pg_notify($1, $2)', [channel, 'rolled back']);
        throw new Error('abort');
      })
      .catch(() => {});
    await t.db.query('select pg_notify($1, $2)', [`${channel}_other`, 'elsewhere']);
    // A listener opened later hears a marker sent after the rollback, so the rolled-back
    // notification would have arrived before it.
    const probe: string[] = [];
    const probing = await t.db.listen(channel, (payload) => probe.push(payload));
    await t.db.query('select pg_notify($1, $2)', [channel, 'marker']);
    await waitFor(() => got.length >= 3 && probe.length >= 1);
    expect(got).toEqual(['plain', 'committed', 'marker']);
    await listener.close();
    await listener.close();
    await t.db.query('select pg_notify($1, $2)', [channel, 'after close']);
    // The probe, still listening, hears it: the closed listener would have by then too.
    await waitFor(() => probe.includes('after close'));
    expect(got).toEqual(['plain', 'committed', 'marker']);
    await probing.close();
  });

  it('listens on several channels on one connection, in commit order, and notifies on it', async () => {
    const base = `chan_${Math.random().toString(36).slice(2, 10)}`;
    const [a, b] = [`${base}_a`, `${base}_b`];
    const got: string[] = [];
    const listener = await t.db.listen([a, b], (payload, channel) =>
      got.push(`${channel === a ? 'a' : 'b'}:${payload}`),
    );
    // Another session's transaction, then the listener's own marker: the marker comes after.
    await t.db.transaction(async (tx) => {
      await tx.query('select pg_notify($1, $2)', [a, '1']);
      await tx.query('select pg_notify($1, $2)', [b, '2']);
    });
    await listener.notify(b, 'marker');
    await waitFor(() => got.length >= 3);
    expect(got).toEqual(['a:1', 'b:2', 'b:marker']);
    await listener.close();
    await expect(t.db.listen([], () => {})).rejects.toThrow(TypeError);
    await expect(t.db.listen([a, 'Bad'], () => {})).rejects.toThrow(TypeError);
  });

  it('rejects channel names that are not plain identifiers', async () => {
    for (const bad of ['', 'Upper', 'semi;colon', 'a b', '1abc', 'x'.repeat(64)]) {
      await expect(t.db.listen(bad, () => {})).rejects.toThrow(TypeError);
    }
  });

  it('reconnects a listener whose connection was killed and reports the gap', async () => {
    if (kind !== 'postgres') return;
    const channel = `chan_${Math.random().toString(36).slice(2, 10)}`;
    const appName = `listen_${Math.random().toString(36).slice(2, 10)}`;
    const own = await openDatabase({ url: t.url, applicationName: appName });
    const got: string[] = [];
    const changes: boolean[] = [];
    const listener = await own.listen(channel, (payload) => got.push(payload), {
      onConnectionChange: (connected) => changes.push(connected),
      reconnectDelayMs: 20,
    });
    try {
      const killed = await t.db.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
          where application_name = $1 and query ilike 'listen %'`,
        [appName],
      );
      expect(killed.rowCount).toBe(1);
      await waitFor(() => changes.length >= 2);
      expect(changes).toEqual([false, true]);
      await t.db.query('select pg_notify($1, $2)', [channel, 'after reconnect']);
      await waitFor(() => got.length >= 1);
      expect(got).toEqual(['after reconnect']);
    } finally {
      await listener.close();
      await own.close();
    }
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('openDatabase', () => {
  it('rejects an invalid schema name', async () => {
    await expect(openDatabase({ dataDir: 'memory://', schema: 'x"; drop' })).rejects.toThrow(
      'Invalid schema name',
    );
  });

  it('opens an in-memory PGlite with a schema', async () => {
    const db = await openDatabase({ dataDir: 'memory://', schema: 'app' });
    try {
      await db.exec('create table t (x int)');
      const { rows } = await db.query<{ s: string }>(
        "select table_schema as s from information_schema.tables where table_name = 't'",
      );
      expect(rows[0]?.s).toBe('app');
    } finally {
      await db.close();
      await db.close();
    }
  });

  it('fails clearly when PostgreSQL is unreachable', async () => {
    await expect(
      openDatabase({ url: 'postgres://postgres@127.0.0.1:1/none' }).then((db) => db.ping()),
    ).rejects.toThrow();
  });
});
