import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import type { FastifyInstance } from 'fastify';
import { type AppOptions, buildApp } from '../src/app.js';
import { userMigrations } from '../src/store/migrations.js';
import { createSqlUserStore } from '../src/store/sql-user-store.js';

export const packageDir = fileURLToPath(new URL('..', import.meta.url));

export interface CliProcess {
  child: ChildProcess;
  url: string;
  redirectUrl: string | undefined;
  output: () => string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Runs the real CLI (src/cli.ts through tsx) and resolves with the code and output once it exits. */
export async function runCliToExit(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnCli(env);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => {
    stdout += c;
  });
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c;
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

function spawnCli(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts'], {
    cwd: packageDir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Starts the real CLI and waits for its "listening on" banner. */
export async function startCli(
  env: Record<string, string>,
  timeoutMs = 150_000,
): Promise<CliProcess> {
  const child = spawnCli(env);
  let out = '';
  const append = (c: Buffer) => {
    out += c;
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = once(child, 'exit');
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`CLI did not start:\n${out}`)), timeoutMs);
    const check = () => {
      const match = /listening on (\S+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`CLI exited with ${code} before listening:\n${out}`));
    });
  });
  const redirect = /HTTP (\S+) redirects/.exec(out)?.[1];
  return {
    child,
    url: url.replace('localhost', '127.0.0.1'),
    redirectUrl: redirect?.replace('localhost', '127.0.0.1'),
    output: () => out,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}

/** The app on a fresh test database (own schema or PGlite folder), listening on an ephemeral port. */
export async function startTestApp(
  kind: 'pglite' | 'postgres',
  options: Partial<AppOptions> = {},
): Promise<{ t: TestDatabase; app: FastifyInstance; base: string }> {
  const t = await createTestDatabase(kind);
  await migrate(t.db, userMigrations);
  const app = await buildApp({
    store: createSqlUserStore(t.db),
    databaseKind: t.db.kind,
    logger: false,
    ...options,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return { t, app, base };
}

/**
 * Writes `raw` (request line, headers and maybe part of a body) on a new connection to `base`,
 * and resolves with everything received once the server closes it, and how long that took.
 */
export async function sendRaw(
  base: string,
  raw: string,
): Promise<{ received: string; ms: number }> {
  const socket = connect(Number(new URL(base).port), '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk;
  });
  const closed = once(socket, 'close');
  const start = Date.now();
  socket.write(raw);
  await closed;
  return { received, ms: Date.now() - start };
}
