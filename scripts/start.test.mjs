// `npm start` supervision, end to end with the real services: a second start fails fast and
// touches nothing; SIGINT and SIGTERM stop every service and the devnet's anvil, ports freed.
// Run with `node --test scripts/` (part of the root `npm test`).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

const root = new URL('..', import.meta.url).pathname;
const starter = join(root, 'scripts', 'start.mjs');
const temp = mkdtempSync(join(tmpdir(), 'sluice-start-'));

before(() => {
  // The starter skips the build in these tests; build (incrementally) once here.
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], {
    cwd: root,
    stdio: 'inherit',
  });
  assert.equal(build.status, 0, 'build failed');
});
after(() => rmSync(temp, { recursive: true, force: true }));

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function portFree(port) {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () =>
      probe.close(() => resolve(true)),
    );
  });
}

/** pid -> { ppid, comm } of every process (Linux /proc). */
function processTable() {
  const table = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue; // a zombie is gone, only not yet reaped
      table.set(Number(name), { ppid: Number(fields[1]), comm });
    } catch {}
  }
  return table;
}

function descendants(pid) {
  const table = processTable();
  const out = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const [child, info] of table) {
      if (info.ppid === parent) {
        out.push({ pid: child, comm: info.comm });
        queue.push(child);
      }
    }
  }
  return out;
}

function alive(pid) {
  const info = processTable().get(pid);
  return info !== undefined;
}

async function waitFor(what, check, timeoutMs = 240_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function startInstance(name, ports, { viaNpm = false } = {}) {
  const dirs = { users: join(temp, name, 'users'), chain: join(temp, name, 'chain') };
  const [command, args] = viaNpm ? ['npm', ['start']] : [process.execPath, [starter]];
  const child = spawn(command, args, {
    cwd: root,
    env: {
      ...process.env,
      SLUICE_START_SKIP_BUILD: '1',
      USERS_PORT: String(ports.users),
      CHAIN_API_PORT: String(ports.chain),
      WEBHOOKS_PORT: String(ports.webhooks),
      USERS_DATA_DIR: dirs.users,
      CHAIN_API_DATA_DIR: dirs.chain,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, dirs, exited, output: () => output };
}

/** Running: users and webhooks listening, the chain API's anvil up and its devnet lock taken. */
async function waitRunning(instance, ports) {
  try {
    await waitFor('the services and anvil', async () => {
      const tree = descendants(instance.child.pid);
      return (
        tree.some((p) => p.comm === 'anvil') &&
        !(await portFree(ports.users)) &&
        !(await portFree(ports.webhooks))
      );
    });
  } catch (error) {
    const tree = descendants(instance.child.pid).map((p) => p.comm);
    throw new Error(
      `${error.message}; processes ${JSON.stringify(tree)}; output:\n${instance.output().slice(-2000)}`,
    );
  }
}

async function assertStopped(instance, signal, tree, ports, { viaNpm = false } = {}) {
  const began = Date.now();
  instance.child.kill(signal);
  const { code } = await instance.exited;
  // npm reports its own way of being signalled; the starter itself exits 0 after a clean stop.
  if (!viaNpm) assert.equal(code, 0, `starter exit code after ${signal}\n${instance.output()}`);
  // Within a few seconds (the starter kills what ignores TERM after 5 s).
  assert.ok(Date.now() - began < 20_000, `took ${Date.now() - began} ms`);
  await waitFor('every descendant gone', () => tree.every((p) => !alive(p.pid)), 5000).catch(() => {
    const left = tree.filter((p) => alive(p.pid));
    assert.deepEqual(left, [], 'processes left running');
  });
  for (const [service, port] of Object.entries(ports)) {
    assert.ok(await portFree(port), `${service} port ${port} still in use`);
  }
}

test('a second start fails fast without touching the first; SIGINT stops everything', async () => {
  const ports = { users: await freePort(), chain: await freePort(), webhooks: await freePort() };
  const first = startInstance('first', ports);
  await waitRunning(first, ports);
  const lock = join(first.dirs.chain, 'devnet.lock');
  await waitFor('the devnet lock', () => {
    try {
      return readFileSync(lock, 'utf8').length > 0;
    } catch {
      return false;
    }
  });
  const store = join(first.dirs.chain, 'devnet');
  await waitFor('the devnet store', () => {
    try {
      return readdirSync(store).length > 0;
    } catch {
      return false;
    }
  });
  // The chain API's port may not be bound yet (it listens after indexing starts); the lock is.
  // A deleted and recreated folder has a new inode.
  const snapshot = () => ({
    lock: readFileSync(lock, 'utf8'),
    store: statSync(store).ino,
    users: statSync(first.dirs.users).ino,
  });
  const beforeSecond = snapshot();

  // Same ports and folders: every service refused, one line each, exit 1, nothing started.
  const second = startInstance('first', ports);
  const result = await second.exited;
  assert.equal(result.code, 1, second.output());
  assert.match(second.output(), new RegExp(`users: port ${ports.users} is in use`));
  assert.match(second.output(), new RegExp(`webhooks: port ${ports.webhooks} is in use`));
  assert.match(
    second.output(),
    /chain-api: (port \d+ is in use|its devnet store is in use by process \d+)/,
  );
  assert.match(second.output(), /nothing was started or changed/);
  assert.doesNotMatch(second.output(), /started \(process group/);

  // Other ports, same chain-API folder: refused by the lock alone.
  const third = startInstance('first', {
    users: await freePort(),
    chain: await freePort(),
    webhooks: await freePort(),
  });
  assert.equal((await third.exited).code, 1, third.output());
  assert.match(third.output(), /chain-api: its devnet store is in use by process \d+/);
  assert.deepEqual(snapshot(), beforeSecond);

  const tree = descendants(first.child.pid);
  assert.ok(tree.length >= 6, JSON.stringify(tree));
  await assertStopped(first, 'SIGINT', tree, ports);
});

test('SIGTERM to `npm start` during the devnet start stops every service and anvil', async () => {
  const ports = { users: await freePort(), chain: await freePort(), webhooks: await freePort() };
  // npm forwards the signal to its shell only: the starter must notice and stop all the same.
  const instance = startInstance('term', ports, { viaNpm: true });
  await waitRunning(instance, ports);
  const tree = descendants(instance.child.pid);
  assert.ok(tree.some((p) => p.comm === 'anvil'));
  await assertStopped(instance, 'SIGTERM', tree, ports, { viaNpm: true });
});
