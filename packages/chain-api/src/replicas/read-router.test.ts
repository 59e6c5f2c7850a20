import { type Database, openDatabase } from '@sluice/db';
import { startTestCluster, type TestCluster } from '@sluice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flushedPrimaryPosition } from '../change-feed/lsn.js';
import { ReadRouter } from './read-router.js';
import { ReadServer } from './read-server.js';

// The router on a primary with two real hot standbys (and a "standby" URL that is really the
// primary): reads follow announced batches whichever standby lags, and skip the broken ones.
describe('ReadRouter over two standbys', () => {
  let primary: TestCluster;
  let standbys: TestCluster[];
  let pdb: Database;
  let admins: Database[];
  let router: ReadRouter;

  const until = async (what: string, check: () => boolean | Promise<boolean>) => {
    const end = Date.now() + 10_000;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  const states = () => router.status().map((s) => s.state);
  /** One routed read: the value and whether a standby answered. */
  const read = async () => {
    const { rows } = await router.query<{ v: number; standby: boolean }>(
      'select v, pg_is_in_recovery() as standby from t',
    );
    return rows[0]!;
  };
  /** A batch on the primary, announced to the router as the change feed would. */
  const write = async (v: number) => {
    await pdb.query('update t set v = $1', [v]);
    router.require(await flushedPrimaryPosition(pdb));
  };

  beforeAll(async () => {
    primary = await startTestCluster();
    standbys = [await primary.startStandby(), await primary.startStandby()];
    pdb = await openDatabase({ url: primary.url });
    await pdb.exec('create table t (v int); insert into t values (1)');
    admins = await Promise.all(standbys.map((s) => openDatabase({ url: s.url, max: 1 })));
    const systemId = async () =>
      (
        await pdb.query<{ id: string }>(
          'select system_identifier::text as id from pg_control_system()',
        )
      ).rows[0]!.id;
    const servers = await Promise.all(
      [...standbys.map((s) => s.url), primary.url].map(
        async (url, i) =>
          new ReadServer(`server-${i}`, await openDatabase({ url, max: 3 }), systemId),
      ),
    );
    router = new ReadRouter({
      primary: pdb,
      primaryName: 'primary',
      replicas: servers,
      maxWaitMs: 100,
      healthIntervalMs: 200,
      lagPollMs: 10,
    });
    await router.start();
  }, 120_000);

  afterAll(async () => {
    await router?.close();
    await Promise.all([pdb, ...(admins ?? [])].map((db) => db?.close()));
    await primary?.destroy();
  });

  it('uses the standbys, never a URL that is not a standby', async () => {
    await until('both standbys ok', () => states().join() === 'ok,ok,ok,misconfigured');
    expect(router.status()[3]?.error).toMatch(/not a hot standby/);
    for (let i = 0; i < 10; i++) expect(await read()).toEqual({ v: 1, standby: true });
    expect(router.status()[3]?.queries).toBe(0);
    // Concurrent reads spread over both standbys (the least busy first).
    const before = router.status().map((s) => s.queries);
    const answers = await Promise.all(Array.from({ length: 40 }, read));
    expect(answers.every((a) => a.v === 1 && a.standby)).toBe(true);
    const after = router.status().map((s) => s.queries);
    expect(after[1]! - before[1]!).toBeGreaterThan(0);
    expect(after[2]! - before[2]!).toBeGreaterThan(0);
  });

  it('follows a batch through the standby that replayed it while the other is paused', async () => {
    await admins[1]!.query('select pg_wal_replay_pause()');
    await write(2);
    const pausedBefore = router.status()[2]!.queries;
    for (let i = 0; i < 20; i++) expect(await read()).toEqual({ v: 2, standby: true });
    expect(router.status()[2]!.queries).toBe(pausedBefore);
    await until('the paused standby to be lagging', () => states()[2] === 'lagging');
  });

  it('answers from the primary while no standby has the batch, and from standbys once they do', async () => {
    await admins[0]!.query('select pg_wal_replay_pause()');
    await write(3);
    const started = Date.now();
    expect(await read()).toEqual({ v: 3, standby: false });
    expect(Date.now() - started).toBeLessThan(2_000);
    for (let i = 0; i < 5; i++) expect((await read()).v).toBe(3);
    await Promise.all(admins.map((a) => a.query('select pg_wal_replay_resume()')));
    await until('both standbys to catch up', () => states().join() === 'ok,ok,ok,misconfigured');
    expect(await read()).toEqual({ v: 3, standby: true });
  });

  it('skips a stopped standby without failing a read', async () => {
    await admins[0]!.close();
    await standbys[0]!.stop('fast');
    for (let i = 0; i < 20; i++) expect((await read()).v).toBe(3);
    await until('the stopped standby to be down', () => states()[1] === 'down');
    expect(router.status()[1]!.error).toBeTruthy();
    await write(4);
    for (let i = 0; i < 5; i++) expect(await read()).toEqual({ v: 4, standby: true });
  });
});
