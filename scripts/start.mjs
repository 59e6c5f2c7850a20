#!/usr/bin/env node
// Starts every workspace package that has a `start` script, side by side, on embedded defaults.
// Each package prints its own URLs and example requests; this script only prefixes and supervises.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// One port per service so they can run together; override with <NAME>_PORT, e.g. USERS_PORT=4000.
const ports = { users: 3000, 'chain-api': 3100, webhooks: 3200 };

const root = new URL('..', import.meta.url).pathname;
const children = [];
for (const dir of readdirSync(join(root, 'packages')).sort()) {
  let pkg;
  try {
    pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
  } catch {
    continue;
  }
  if (!pkg.scripts?.start) continue;
  const envName = `${dir.toUpperCase().replace(/-/g, '_')}_PORT`;
  const port = process.env[envName] ?? String(ports[dir] ?? 0);
  const child = spawn('npm', ['run', '--silent', 'start', '-w', pkg.name], {
    cwd: root,
    env: { ...process.env, PORT: port },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tag = `[${dir}]`;
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.on('data', (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) process.stdout.write(`${tag} ${line}\n`);
    });
  }
  child.on('exit', (code, signal) => {
    process.stdout.write(`${tag} exited (${signal ?? code})\n`);
  });
  children.push(child);
}

if (children.length === 0) {
  console.log('No package has a start script yet.');
  process.exit(0);
}

let stopping = false;
const stop = (signal) => {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill(signal);
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
await Promise.all(children.map((c) => new Promise((resolve) => c.on('exit', resolve))));
