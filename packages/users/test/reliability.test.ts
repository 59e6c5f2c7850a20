import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, migrate, openDatabase } from '@sluice/db';
import {
  startTcpProxy,
  startTestCluster,
  type TcpProxy,
  type TestCluster,
} from '@sluice/db/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/app.js';
import { userMigrations } from '../src/store/migrations.js';
import { createSqlUserStore } from '../src/store/sql-user-store.js';
import { type CliProcess, runCliToExit, sendRaw, startCli } from './helpers.js';

// Faults an operator meets: a second process on one PGlite folder, a killed process, a stalled
// client body, a frozen database, a PostgreSQL restart. Child processes start slowly on 2 cores.
vi.setConfig({ testTimeout: 180_000 });

const tmp = mkdtempSync(join(tmpdir(), 'sluice-users-reliability-'));
const running: CliProcess[] = [];
afterAll(async () => {
  for (const cli of running) await cli.stop();
  rmSync(tmp, { recursive: true, force: true });
});

async function post(base: string, body: unknown): Promise<Response> {
  return fetch(`${base}/add`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Status (or the network error) of a request, and how long it took. */
async function attempt(url: string, init?: RequestInit): Promise<{ status: number; ms: number }> {
  const start = Date.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(60_000) });
    await res.arrayBuffer();
    return { status: res.status, ms: Date.now() - start };
  } catch {
    return { status: 0, ms: Date.now() - start };
  }
}

describe('one PGlite folder, two processes', () => {
  it('refuses the second process with the folder and holder pid, and recovers after kill -9', async () => {
    const dir = mkdtempSync(join(tmp, 'pglite-'));
    const first = await startCli({ DATA_DIR: dir });
    running.push(first);
    expect((await post(first.url, { id: 1, name: 'First', pro: 'holder' })).status).toBe(201);

    const second = await runCliToExit({ DATA_DIR: dir });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      `PGlite data folder ${dir} is in use by process ${first.child.pid}`,
    );
    expect(second.stdout).not.toContain('listening on');
    // The holder is untouched.
    expect((await fetch(`${first.url}/1`)).status).toBe(200);

    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    const third = await startCli({ DATA_DIR: dir });
    running.push(third);
    const res = await fetch(`${third.url}/1`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { name: string }).name).toBe('First');
    expect(await third.stop()).toBe(0);
  });
});

describe('PostgreSQL faults', () => {
  let cluster: TestCluster;
  let proxy: TcpProxy;
  let db: Database;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    cluster = await startTestCluster();
    proxy = await startTcpProxy(cluster.port);
    db = await openDatabase({
      url: `postgres://postgres@127.0.0.1:${proxy.port}/postgres`,
      statementTimeoutMs: 1_000,
      connectTimeoutMs: 1_000,
    });
    await migrate(db, userMigrations);
    app = await buildApp({
      store: createSqlUserStore(db),
      databaseKind: db.kind,
      logger: false,
      bodyTimeoutMs: 1_000,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    expect((await post(base, { id: 5, name: 'Kept', pro: 'safe' })).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await db?.close();
    await proxy?.close();
    await cluster?.destroy();
  });

  it('answers 503 on every route and /health while the database is frozen, then recovers', async () => {
    proxy.freeze();
    let during: { status: number; ms: number }[];
    try {
      during = await Promise.all([
        attempt(`${base}/health`),
        attempt(`${base}/users`),
        attempt(`${base}/5`),
        attempt(`${base}/add`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ id: 6, name: 'Frozen', pro: 'waiting' }),
        }),
        attempt(`${base}/5`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Kept', pro: 'edited' }),
        }),
      ]);
    } finally {
      proxy.resume();
    }
    expect(during.map((d) => d.status)).toEqual([503, 503, 503, 503, 503]);
    // Bounded by the 1 s timeouts, far below the 60 s the client would wait.
    for (const d of during) expect(d.ms).toBeLessThan(30_000);
    const body = await (await fetch(`${base}/health`)).json();
    expect(body).toEqual({ status: 'ok', database: 'postgres' });
    proxy.cut();
    await expect
      .poll(async () => (await attempt(`${base}/5`)).status, { timeout: 30_000 })
      .toBe(200);
  });

  it('answers 503 with a JSON body while PostgreSQL restarts, and serves again after', async () => {
    await cluster.stop('fast');
    try {
      const down = await fetch(`${base}/5`);
      expect(down.status).toBe(503);
      expect(await down.json()).toMatchObject({ code: 'USERS_DATABASE_UNAVAILABLE' });
      expect((await fetch(`${base}/health`)).status).toBe(503);
      expect((await post(base, { id: 7, name: 'Down', pro: 'refused' })).status).toBe(503);
    } finally {
      await cluster.start();
    }
    await expect
      .poll(async () => (await attempt(`${base}/5`)).status, { timeout: 30_000 })
      .toBe(200);
    expect((await post(base, { id: 8, name: 'After', pro: 'restart' })).status).toBe(201);
    expect((await fetch(`${base}/7`)).status).toBe(404);
  });

  it('answers 408 and closes a connection whose body is shorter than its Content-Length', async () => {
    const { received } = await sendRaw(
      base,
      'POST /add HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id":9',
    );
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(received).toContain('USERS_REQUEST_TIMEOUT');
    expect((await fetch(`${base}/9`)).status).toBe(404);
  });
});

describe('a users process across a PostgreSQL restart', () => {
  it('stays up, answers 503 while down and 200 after', async () => {
    const cluster = await startTestCluster();
    try {
      const cli = await startCli({ DATABASE_URL: cluster.url, DB_CONNECT_TIMEOUT_MS: '2000' });
      running.push(cli);
      expect((await post(cli.url, { id: 1, name: 'Before', pro: 'restart' })).status).toBe(201);
      // Warm several pooled connections, so idle ones are cut by the restart.
      await Promise.all(Array.from({ length: 6 }, () => fetch(`${cli.url}/users`)));
      await cluster.restart('fast');
      expect(cli.child.exitCode).toBeNull();
      await expect
        .poll(async () => (await attempt(`${cli.url}/1`)).status, { timeout: 30_000 })
        .toBe(200);
      await cluster.stop('immediate');
      const down = await attempt(`${cli.url}/health`);
      expect(down.status).toBe(503);
      await cluster.start();
      await expect
        .poll(async () => (await attempt(`${cli.url}/health`)).status, { timeout: 30_000 })
        .toBe(200);
      expect(cli.child.exitCode).toBeNull();
      expect(cli.output()).not.toMatch(/Unhandled|uncaught/i);
      expect(await cli.stop()).toBe(0);
    } finally {
      await cluster.destroy();
    }
  });
});
