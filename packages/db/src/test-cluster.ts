import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A PostgreSQL server of a test's own, so the test may stop and restart it. */
export interface TestCluster {
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication). */
  readonly url: string;
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  restart(mode?: 'fast' | 'immediate'): Promise<void>;
  /**
   * A hot standby of this server on another port: `pg_basebackup -R` (streaming replication
   * through a replication slot of its own), started and accepting read-only queries. Its
   * `destroy()` removes only the standby; the primary's `destroy()` removes everything.
   */
  startStandby(): Promise<TestCluster>;
  /** Stops the server and deletes its data folder. */
  destroy(): Promise<void>;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0]) throw new Error(`no PostgreSQL server binaries under ${root}/*/bin`);
  return join(root, versions[0], 'bin');
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

interface ServerSetup {
  dir: string;
  data: string;
  port: number;
  pg: (tool: string, args: string[]) => Promise<unknown>;
}

/** pg_ctl start/stop of one data folder on `port`, as a `TestCluster`. */
function controlServer(setup: ServerSetup, standby: () => Promise<TestCluster>): TestCluster {
  const { dir, data, port, pg } = setup;
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c max_connections=200`;
  const start = async () => {
    await pg('pg_ctl', ['-D', data, '-o', options, '-l', `${data}.log`, '-w', '-t', '60', 'start']);
  };
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    await pg('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
  };
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    async restart(mode = 'fast') {
      await stop(mode);
      await start();
    },
    startStandby: standby,
    async destroy() {
      await stop('immediate').catch(() => {});
      rmSync(data, { recursive: true, force: true });
      rmSync(`${data}.log`, { force: true });
    },
  };
}

/**
 * initdb + pg_ctl a throwaway PostgreSQL on a free port (as the `postgres` user when running as
 * root, since PostgreSQL refuses root). For fault tests: never stop the shared server.
 * `startStandby()` adds a hot standby of it (streaming replication, see `TestCluster`).
 *
 * @example
 * const cluster = await startTestCluster();
 * await cluster.restart();
 * const standby = await cluster.startStandby();
 * await standby.destroy();
 * await cluster.destroy();
 */
export async function startTestCluster(): Promise<TestCluster> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'sluice-pgcluster-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
    chmodSync(dir, 0o700);
  }
  const pg = (tool: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args])
      : run(join(bin, tool), args);
  // initdb's pg_hba.conf already trusts replication connections from 127.0.0.1, and PostgreSQL
  // 10+ defaults to wal_level=replica with WAL senders: pg_basebackup works as is.
  await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const standbys: TestCluster[] = [];
  const primary = controlServer({ dir, data, port, pg }, async () => {
    const n = standbys.length + 1;
    const standbyData = join(dir, `standby-${n}`);
    const standbyPort = await freePort();
    // -R writes primary_conninfo + standby.signal; the slot keeps the WAL a stopped standby
    // still needs, so it catches up after a restart.
    await pg('pg_basebackup', [
      ...['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-D', standbyData],
      ...['-R', '-X', 'stream', '-c', 'fast', '-C', '-S', `standby_${n}`, '--no-sync'],
    ]);
    const standby = controlServer({ dir, data: standbyData, port: standbyPort, pg }, async () => {
      throw new Error('cascading standbys are not supported here');
    });
    standbys.push(standby);
    await standby.start();
    return standby;
  });
  await primary.start();
  return {
    ...primary,
    async destroy() {
      await Promise.all(standbys.map((standby) => standby.destroy()));
      await primary.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
