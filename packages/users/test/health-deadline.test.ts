import { type Database, openDatabase } from '@sluice/db';
import {
  startTcpProxy,
  type TcpProxy,
  type TestDatabase,
  testDatabaseUrl,
} from '@sluice/db/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { createSqlUserStore } from '../src/store/sql-user-store.js';
import { startTestApp } from './helpers.js';

// /health is what orchestrators poll: it must say "unreachable" quickly even when the database
// neither answers nor fails, whatever the (longer) statement timeouts of real requests are.
const BOUND_MS = 2_000;

async function timedHealth(base: string): Promise<{ status: number; body: unknown; ms: number }> {
  const start = Date.now();
  const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(30_000) });
  const body: unknown = await res.json();
  return { status: res.status, body, ms: Date.now() - start };
}

function listeningBase(app: FastifyInstance): string {
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

describe('/health with PostgreSQL frozen', () => {
  let t: TestDatabase;
  let setup: FastifyInstance;
  let proxy: TcpProxy;
  let db: Database;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    // A schema with the tables (migrated), then the app's own pool through a proxy that can
    // freeze: connections stay open and nothing answers, as with a stopped server.
    ({ t, app: setup } = await startTestApp('postgres'));
    await setup.close();
    proxy = await startTcpProxy(Number(new URL(testDatabaseUrl()).port || 5432));
    const url = new URL(testDatabaseUrl());
    url.host = `127.0.0.1:${proxy.port}`;
    // The service's default timeouts: a request waits up to 5 s for a statement.
    db = await openDatabase({
      url: url.toString(),
      schema: t.schema,
      statementTimeoutMs: 5_000,
      connectTimeoutMs: 5_000,
    });
    app = await buildApp({ store: createSqlUserStore(db), databaseKind: db.kind, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = listeningBase(app);
  });

  afterAll(async () => {
    proxy?.resume();
    await app?.close();
    await db?.close();
    await proxy?.close();
    await t?.drop();
  });

  it('answers 503 "Database unreachable" within 2 s, for every probe, then 200 once it answers', async () => {
    expect((await timedHealth(base)).status).toBe(200);
    proxy.freeze();
    let probes: Awaited<ReturnType<typeof timedHealth>>[];
    try {
      probes = await Promise.all([timedHealth(base), timedHealth(base), timedHealth(base)]);
    } finally {
      proxy.resume();
    }
    for (const probe of probes) {
      expect(probe.status).toBe(503);
      expect(probe.body).toMatchObject({
        status: 'unavailable',
        database: 'postgres',
        message: expect.stringMatching(/^Database unreachable/),
      });
      expect(probe.ms).toBeLessThan(BOUND_MS);
    }
    await expect.poll(async () => (await timedHealth(base)).status, { timeout: 30_000 }).toBe(200);
  });
});

describe('/health with PGlite busy', () => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    ({ t, app, base } = await startTestApp('pglite'));
  });
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  it('answers 503 within 2 s while a transaction holds the single connection, then 200', async () => {
    expect((await timedHealth(base)).status).toBe(200);
    let release = () => {};
    const held = t.db.transaction(
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    );
    try {
      const probe = await timedHealth(base);
      expect(probe.status).toBe(503);
      expect(probe.body).toMatchObject({ message: expect.stringMatching(/^Database unreachable/) });
      expect(probe.ms).toBeLessThan(BOUND_MS);
    } finally {
      release();
      await held;
    }
    expect((await timedHealth(base)).status).toBe(200);
  });
});
