import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, isDatabaseUnavailable, openDatabase } from '../src/index.js';
import {
  startTcpProxy,
  startTestCluster,
  type TcpProxy,
  type TestCluster,
} from '../src/testing.js';

// A PostgreSQL of this file's own (restarted below) behind a proxy the tests can freeze.
let cluster: TestCluster;
let proxy: TcpProxy;
let db: Database;

beforeAll(async () => {
  cluster = await startTestCluster();
  proxy = await startTcpProxy(cluster.port);
  db = await openDatabase({
    url: `postgres://postgres@127.0.0.1:${proxy.port}/postgres`,
    statementTimeoutMs: 1_000,
    connectTimeoutMs: 1_000,
  });
  await db.query('create table t (id int primary key)');
}, 120_000);

afterAll(async () => {
  await db?.close();
  await proxy?.close();
  await cluster?.destroy();
});

async function settle<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown; ms: number }> {
  const start = Date.now();
  try {
    return { value: await promise, ms: Date.now() - start };
  } catch (error) {
    return { error, ms: Date.now() - start };
  }
}

describe('PostgreSQL faults', () => {
  it('a frozen server fails queries, transactions and new connections within the timeouts', async () => {
    await db.query('select 1');
    proxy.freeze();
    try {
      const outcomes = await Promise.all([
        settle(db.query('select 1')),
        settle(db.ping()),
        settle(db.transaction((tx) => tx.query('insert into t values (1)'))),
        // More than the pool holds: some wait for a connection, some open new ones.
        ...Array.from({ length: 12 }, () => settle(db.query('select 2'))),
      ]);
      for (const outcome of outcomes) {
        expect(outcome.error).toBeDefined();
        expect(isDatabaseUnavailable(outcome.error)).toBe(true);
        // Bounded by the timeouts (1 s + 1 s read margin, + connect), with slack for a busy CI.
        expect(outcome.ms).toBeLessThan(15_000);
      }
    } finally {
      proxy.resume();
    }
    proxy.cut();
    await expect
      .poll(
        () =>
          db.query('select 1').then(
            () => true,
            () => false,
          ),
        { timeout: 20_000 },
      )
      .toBe(true);
    expect((await db.query('select count(*)::int as n from t')).rows).toEqual([{ n: 0 }]);
  });

  it('survives a server restart with idle and checked-out connections, then recovers', async () => {
    await Promise.all(Array.from({ length: 5 }, () => db.query('select pg_sleep(0.05)')));
    // A transaction holding a client across the restart.
    const inFlight = settle(
      db.transaction(async (tx) => {
        await tx.query('insert into t values (2)');
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        await tx.query('insert into t values (3)');
      }),
    );
    const listener = await db.listen('faults_test', () => {});
    await cluster.restart('fast');
    const failed = await inFlight;
    expect(isDatabaseUnavailable(failed.error)).toBe(true);
    await expect
      .poll(
        () =>
          db.query('select 1').then(
            () => true,
            () => false,
          ),
        { timeout: 30_000 },
      )
      .toBe(true);
    await db.query('insert into t values (4)');
    expect((await db.query('select id from t order by id')).rows).toEqual([{ id: 4 }]);
    await listener.close();
  });

  it('classifies statement errors as not unavailable', async () => {
    const error = await db.query('select * from no_such_table').catch((e: unknown) => e);
    expect(isDatabaseUnavailable(error)).toBe(false);
    const timeout = await db.query('select pg_sleep(3)').catch((e: unknown) => e);
    expect(isDatabaseUnavailable(timeout)).toBe(true);
  });
});
