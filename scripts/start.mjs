#!/usr/bin/env node
// `npm start`: checks that every service can start (ports free, the chain API's devnet store not
// in use) BEFORE building or touching anything, builds incrementally, then starts every workspace
// package that has a `start` script side by side and supervises them. Each package prints its own
// URLs and example requests; this script prefixes their lines.
//
// Each service runs in its own process group (sh, node and the devnet's anvil's parent), so
// SIGINT/SIGTERM stop all of it: TERM to every group, KILL to what is left after a grace period.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { delimiter, isAbsolute, join } from 'node:path';

// One port per service so they can run together; override with <NAME>_PORT, e.g. USERS_PORT=4000,
// and the data folder with <NAME>_DATA_DIR.
const defaultPorts = { users: 3000, 'chain-api': 3100, webhooks: 3200 };
const GRACE_MS = Number(process.env.SLUICE_STOP_GRACE_MS ?? 5000);

const root = new URL('..', import.meta.url).pathname;
const log = (line) => process.stdout.write(`[start] ${line}\n`);
const envKey = (dir) => dir.toUpperCase().replace(/-/g, '_');

function services() {
  const out = [];
  for (const dir of readdirSync(join(root, 'packages')).sort()) {
    let pkg;
    try {
      pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
    } catch {
      continue;
    }
    if (!pkg.scripts?.start) continue;
    const port = Number(process.env[`${envKey(dir)}_PORT`] ?? defaultPorts[dir] ?? 0);
    const dataDir = process.env[`${envKey(dir)}_DATA_DIR`];
    const cwd = join(root, 'packages', dir);
    out.push({
      dir,
      name: pkg.name,
      start: pkg.scripts.start,
      port,
      dataDir: dataDir && !isAbsolute(dataDir) ? join(root, dataDir) : dataDir,
      cwd,
    });
  }
  return out;
}

/** Whether something answers or is bound on the port (any local address). */
async function portBusy(port) {
  const connects = await new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
  if (connects) return true;
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error) => resolve(error.code === 'EADDRINUSE'));
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () =>
      probe.close(() => resolve(false)),
    );
  });
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** One line per service that cannot start; empty when all can. Touches nothing. */
async function preflight(list) {
  const problems = [];
  for (const s of list) {
    if (s.port !== 0 && (await portBusy(s.port))) {
      problems.push(
        `${s.dir}: port ${s.port} is in use (another \`npm start\`?); stop it or set ${envKey(s.dir)}_PORT`,
      );
      continue;
    }
    if (s.dir === 'chain-api') {
      const lock = join(s.dataDir ?? join(s.cwd, 'data'), 'devnet.lock');
      let owner;
      try {
        // {"pid": n, ...} (lockFolder of @sluice/db), or a bare pid from earlier versions.
        const held = JSON.parse(readFileSync(lock, 'utf8'));
        owner = typeof held === 'number' ? held : held?.pid;
      } catch {}
      if (owner > 0 && owner !== process.pid && alive(owner)) {
        problems.push(`${s.dir}: its devnet store is in use by process ${owner} (lock ${lock})`);
      }
    }
  }
  return problems;
}

const list = services();
if (list.length === 0) {
  log('No package has a start script yet.');
  process.exit(0);
}
const problems = await preflight(list);
if (problems.length > 0) {
  for (const line of problems) process.stderr.write(`[start] cannot start ${line}\n`);
  process.stderr.write('[start] nothing was started or changed\n');
  process.exit(1);
}

if (process.env.SLUICE_START_SKIP_BUILD !== '1') {
  const began = Date.now();
  // Skips packages whose dist is current; tsc is incremental for the rest (scripts/build.mjs).
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) {
    log(`build failed (${build.signal ?? build.status}); nothing started`);
    process.exit(1);
  }
  log(`built in ${((Date.now() - began) / 1000).toFixed(1)} s`);
}

const children = [];
let stopping = false;
let exitCode = 0;

// The chain API's devnet demo subscribes the webhooks demo receiver: both get one fresh secret,
// and the chain API may deliver to that local receiver (its SSRF check refuses loopback).
const demoSecret =
  process.env.SLUICE_DEMO_WEBHOOK_SECRET || `whsec_demo_${randomBytes(24).toString('base64url')}`;
const receiver = list.find((s) => s.dir === 'webhooks');

for (const s of list) {
  const env = { ...process.env, PORT: String(s.port) };
  env.SLUICE_DEMO_WEBHOOK_SECRET = demoSecret;
  if (s.dir === 'chain-api' && receiver) {
    const host = `127.0.0.1:${receiver.port}`;
    env.SLUICE_DEMO_WEBHOOK_URL = `http://${host}/chain-deliveries`;
    env.WEBHOOK_ALLOW_HOSTS = [process.env.WEBHOOK_ALLOW_HOSTS, host].filter(Boolean).join(',');
  }
  if (s.dataDir) env.DATA_DIR = s.dataDir;
  // The package's start script through sh, as npm would run it, minus npm's own start-up time.
  env.PATH = [join(s.cwd, 'node_modules', '.bin'), join(root, 'node_modules', '.bin'), env.PATH]
    .filter(Boolean)
    .join(delimiter);
  const child = spawn('/bin/sh', ['-c', s.start], {
    cwd: s.cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // own process group: one signal reaches npm, sh, node and anvil
  });
  const tag = `[${s.dir}]`;
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.on('data', (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) process.stdout.write(`${tag} ${line}\n`);
    });
  }
  child.exited = new Promise((resolve) => child.once('exit', resolve));
  child.on('exit', (code, signal) => {
    process.stdout.write(`${tag} exited (${signal ?? code})\n`);
    if (!stopping) {
      // One service down means the demo is broken: stop the others and report failure.
      exitCode = 1;
      stop('SIGTERM');
    }
  });
  log(`${s.dir} started (process group ${child.pid})`);
  children.push(child);
}

function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

function groupAlive(child) {
  try {
    process.kill(-child.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every live descendant of `pid` (Linux /proc); empty where /proc is missing. */
function descendants(pid) {
  const parents = new Map();
  let entries = [];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  for (const name of entries) {
    try {
      // Fields after the command (which may hold spaces) start after the last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(name), ppid);
    } catch {}
  }
  const out = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        out.push(child);
        queue.push(child);
      }
    }
  }
  return out;
}

async function stop(signal) {
  if (stopping) return;
  stopping = true;
  log(`stopping (${signal})`);
  // Processes that left the service's group (anvil and its watchdog run in their own) are
  // followed too: noted now, while their parents still live.
  const strays = children.flatMap((child) => descendants(child.pid));
  for (const child of children) signalGroup(child, 'SIGTERM');
  const deadline = Date.now() + GRACE_MS;
  while (Date.now() < deadline && children.some(groupAlive)) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const child of children) {
    if (groupAlive(child)) {
      log(`process group ${child.pid} still running after ${GRACE_MS} ms: killing it`);
      signalGroup(child, 'SIGKILL');
    }
  }
  await Promise.all(children.map((c) => c.exited));
  // anvil's watchdog ends it once the chain API is gone; give it a moment, then make sure.
  const strayDeadline = Date.now() + 2000;
  while (Date.now() < strayDeadline && strays.some(alive)) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const pid of strays.filter(alive)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  log('stopped');
  process.exit(exitCode);
}

process.on('SIGINT', () => {
  stop('SIGINT');
});
process.on('SIGTERM', () => {
  stop('SIGTERM');
});
process.on('SIGHUP', () => {
  stop('SIGHUP');
});
// `npm start` forwards a signal to its shell only, which dies and leaves this script behind:
// a changed parent means whoever started us is gone, so stop as if signalled.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop('parent exited');
}, 250).unref();
// Last resort if this script dies of an error: take the groups down with it.
process.on('exit', () => {
  for (const child of children) signalGroup(child, 'SIGKILL');
});
