// Runs `ponder start` cold against the benchmark chain and reports the time until /ready.
// Env: PONDER_RPC_URL, PONDER_TARGET (postgres|pglite), PONDER_HEAD, PONDER_TOKENS, DATABASE_URL
// (a fresh database: the caller drops it), PONDER_TIMEOUT_MS. Started by bench/run-ponder.ts
// with the Node binary Ponder needs.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const port = await new Promise((resolve) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const pgliteDir = mkdtempSync(join(tmpdir(), 'ponder-pglite-'));
const schema = `ponder_bench_${Date.now()}`;
const start = performance.now();
const child = spawn(
  process.execPath,
  [
    'node_modules/ponder/dist/esm/bin/ponder.js',
    'start',
    '--port',
    String(port),
    '--schema',
    schema,
  ],
  {
    env: { ...process.env, PGLITE_DIR: pgliteDir, PONDER_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  },
);
let out = '';
child.stdout.on('data', (d) => (out += d));
child.stderr.on('data', (d) => (out += d));
let ready = false;
const timeout = Number(process.env.PONDER_TIMEOUT_MS ?? 3_600_000);
while (!ready && child.exitCode === null && performance.now() - start < timeout) {
  await new Promise((r) => setTimeout(r, 100));
  try {
    const res = await fetch(`http://127.0.0.1:${port}/ready`);
    ready = res.status === 200;
  } catch {}
}
const seconds = (performance.now() - start) / 1000;
let events = 0;
try {
  const m = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  for (const line of m.split('\n')) {
    const mm = /^ponder_indexing_completed_events\{[^}]*\} (\d+)/.exec(line);
    if (mm) events += Number(mm[1]);
  }
} catch {}
child.kill('SIGKILL');
rmSync(pgliteDir, { recursive: true, force: true });
if (!ready) {
  process.stderr.write(out.slice(-3000));
  process.exit(1);
}
console.log(`PONDER_RESULT ${JSON.stringify({ seconds, events })}`);
