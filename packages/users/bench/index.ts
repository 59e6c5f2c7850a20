// npm run bench -w @sluice/users
// GET /users (1,000 records) and POST /add, side by side in one run: this service on PostgreSQL
// and PGlite, json-server 0.17.4 (the usual pick), and a bare Fastify + pg handler (the limit).
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate, openDatabase } from '@sluice/db';
import autocannon from 'autocannon';
import pg from 'pg';
import { userMigrations } from '../src/store/migrations.js';
import { newObjectId } from '../src/store/object-id.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const DATABASE = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SCHEMA = 'bench_users';
const RECORDS = 1000;
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

const seed = Array.from({ length: RECORDS }, (_, i) => ({
  id: i + 1,
  name: `User number ${i + 1}`,
  pro: ['engineer', 'designer', 'analyst', 'teacher', 'nurse'][i % 5] ?? 'engineer',
}));

function withSearchPath(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

async function seedDatabase(db: Awaited<ReturnType<typeof openDatabase>>): Promise<void> {
  await migrate(db, userMigrations);
  await db.query('truncate users');
  for (let i = 0; i < seed.length; i += 250) {
    const chunk = seed.slice(i, i + 250);
    const values = chunk.map(
      (_, j) => `($${j * 4 + 1}, $${j * 4 + 2}, $${j * 4 + 3}, $${j * 4 + 4})`,
    );
    await db.query(
      `insert into users (_id, id, name, pro) values ${values.join(', ')}`,
      chunk.flatMap((u) => [newObjectId(), u.id, u.name, u.pro]),
    );
  }
}

interface Target {
  name: string;
  child: ChildProcess;
  base: string;
  listPath: string;
  addPath: string;
}

async function startTarget(
  name: string,
  args: string[],
  env: Record<string, string>,
  paths: { listPath: string; addPath: string },
): Promise<Target> {
  const child = spawn(process.execPath, args, {
    cwd: packageDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk;
      const match = /(https?:\/\/(?:localhost|127\.0\.0\.1):\d+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1].replace('localhost', '127.0.0.1'));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}):\n${out}`)));
  });
  // Keep draining the request logs, as a production log pipe would.
  child.stdout?.removeAllListeners('data');
  child.stdout?.resume();
  // Some servers print their URL before they listen: wait until the list answers.
  for (let attempt = 0; ; attempt++) {
    const ok = await fetch(`${base}${paths.listPath}`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) break;
    if (attempt > 300) throw new Error(`${name} does not answer at ${base}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { name, child, base, ...paths };
}

/** A free TCP port, for json-server (it prints the requested port, not the bound one). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

async function stopTarget(target: Target): Promise<void> {
  if (target.child.exitCode !== null) return;
  const exited = once(target.child, 'exit');
  target.child.kill('SIGTERM');
  const timer = setTimeout(() => target.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

interface Measure {
  rps: number;
  p99: number;
  bad: number;
}

async function measure(options: Parameters<typeof autocannon>[0]): Promise<Measure> {
  await autocannon({ ...options, duration: 2 }); // warm-up: JIT, pools, caches
  const result = await autocannon({ ...options, duration: DURATION });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    bad: result.non2xx + result.errors + result.timeouts,
  };
}

async function benchList(target: Target): Promise<Measure> {
  const res = await fetch(`${target.base}${target.listPath}`);
  const body = (await res.json()) as { id: number; name: string }[];
  if (body.length !== RECORDS || body[0]?.name !== 'User number 1') {
    throw new Error(`${target.name}: GET ${target.listPath} did not return the ${RECORDS} records`);
  }
  return measure({ url: `${target.base}${target.listPath}`, connections: CONNECTIONS });
}

async function benchAdd(target: Target): Promise<Measure> {
  let next = 1_000_000;
  return measure({
    url: `${target.base}${target.addPath}`,
    connections: CONNECTIONS,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => {
          next += 1;
          return {
            ...request,
            body: JSON.stringify({ id: next, name: `Bench ${next}`, pro: 'load' }),
          };
        },
      },
    ],
  });
}

async function main(): Promise<void> {
  const require = createRequire(import.meta.url);
  const jsonServerBin = join(require.resolve('json-server/package.json'), '..', 'lib/cli/bin.js');
  const tmp = mkdtempSync(join(tmpdir(), 'sluice-users-bench-'));
  const admin = new pg.Client({ connectionString: DATABASE });
  await admin.connect();
  await admin.query(`drop schema if exists ${SCHEMA} cascade; create schema ${SCHEMA}`);
  await admin.end();
  const databaseUrl = withSearchPath(DATABASE, SCHEMA);

  const tsx = ['--import', 'tsx'];
  const rows: { name: string; list?: Measure; add?: Measure }[] = [];
  const run = async (name: string, start: () => Promise<Target>, reseed: () => Promise<void>) => {
    await reseed();
    const target = await start();
    const row: { name: string; list?: Measure; add?: Measure } = { name };
    try {
      process.stderr.write(`${name}: GET ${target.listPath} ...\n`);
      row.list = await benchList(target);
      process.stderr.write(`${name}: POST ${target.addPath} ...\n`);
      row.add = await benchAdd(target);
    } finally {
      await stopTarget(target);
    }
    rows.push(row);
  };

  const reseedPostgres = async () => {
    const db = await openDatabase({ url: DATABASE, schema: SCHEMA });
    await seedDatabase(db);
    await db.close();
  };
  const pgliteDir = join(tmp, 'pglite');
  const reseedPglite = async () => {
    const db = await openDatabase({ dataDir: pgliteDir });
    await seedDatabase(db);
    await db.close();
  };
  const jsonDb = join(tmp, 'db.json');
  const reseedJson = async () => {
    writeFileSync(jsonDb, JSON.stringify({ users: seed }, null, 2));
  };
  const service = { listPath: '/users?limit=1000', addPath: '/add' };

  try {
    await run(
      'sluice-users (PostgreSQL)',
      () =>
        startTarget(
          'service',
          [...tsx, 'src/cli.ts'],
          { DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
          service,
        ),
      reseedPostgres,
    );
    await run(
      'sluice-users (PGlite)',
      () =>
        startTarget(
          'service',
          [...tsx, 'src/cli.ts'],
          { DATA_DIR: pgliteDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
          service,
        ),
      reseedPglite,
    );
    await run(
      'json-server 0.17.4',
      async () =>
        startTarget(
          'json-server',
          [jsonServerBin, jsonDb, '--port', String(await freePort()), '--host', '127.0.0.1'],
          {},
          {
            listPath: '/users',
            addPath: '/users',
          },
        ),
      reseedJson,
    );
    for (const mode of ['rows', 'sql-json']) {
      await run(
        `bare Fastify + pg (${mode})`,
        () =>
          startTarget(
            'bare',
            [...tsx, 'bench/bare-server.ts'],
            { DATABASE_URL: databaseUrl, BARE_MODE: mode },
            {
              listPath: '/users',
              addPath: '/add',
            },
          ),
        reseedPostgres,
      );
    }
  } finally {
    const admin2 = new pg.Client({ connectionString: DATABASE });
    await admin2.connect();
    await admin2.query(`drop schema if exists ${SCHEMA} cascade`);
    await admin2.end();
    rmSync(tmp, { recursive: true, force: true });
  }

  const fmt = (m: Measure | undefined) =>
    m
      ? `${m.rps.toFixed(0).padStart(7)} req/s  p99 ${String(m.p99).padStart(4)} ms${m.bad ? `  (${m.bad} non-2xx/errors)` : ''}`
      : 'n/a';
  console.log(`\n${RECORDS} records, ${CONNECTIONS} connections, ${DURATION} s per measurement\n`);
  console.log(`${'target'.padEnd(30)}  ${'GET /users (1,000 records)'.padEnd(28)}  POST /add`);
  for (const row of rows)
    console.log(`${row.name.padEnd(30)}  ${fmt(row.list).padEnd(28)}  ${fmt(row.add)}`);
  const find = (prefix: string) => rows.find((r) => r.name.startsWith(prefix));
  const ours = find('sluice-users (PostgreSQL)');
  const jsonServer = find('json-server');
  const bareRows = find('bare Fastify + pg (rows)');
  const bareJson = find('bare Fastify + pg (sql-json)');
  const ratio = (a?: Measure, b?: Measure) => (a && b ? (a.rps / b.rps).toFixed(2) : 'n/a');
  console.log('\nGET /users, sluice-users on PostgreSQL:');
  console.log(
    `  vs json-server:                 ${ratio(ours?.list, jsonServer?.list)}x (goal >= 5x)`,
  );
  console.log(
    `  vs bare Fastify + pg (rows):     ${ratio(ours?.list, bareRows?.list)}x (goal >= 0.8x)`,
  );
  console.log(`  vs bare Fastify + pg (sql-json): ${ratio(ours?.list, bareJson?.list)}x`);
  console.log('POST /add, sluice-users on PostgreSQL:');
  console.log(`  vs json-server:                 ${ratio(ours?.add, jsonServer?.add)}x`);
  console.log(`  vs bare Fastify + pg:            ${ratio(ours?.add, bareRows?.add)}x`);
}

await main();
