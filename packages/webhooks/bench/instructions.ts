// `npm run bench:instructions -w @sluice/webhooks`: user-space instructions per request of each
// receiver (the http and bare floors, @sluice/webhooks, @octokit/webhooks), counted by valgrind's
// callgrind.
// Unlike req/s or CPU time, instruction counts do not depend on what else the machine runs.
//
// Each receiver (bench/server.ts) runs under callgrind twice: once for WARM requests and once
// for WARM + MEASURED. The difference, divided by MEASURED, is the cost of one request once the
// JIT has settled. Only the main thread is counted (callgrind --separate-threads): V8's compiler
// and GC helper threads run at times that differ from run to run. Caveats: valgrind hides the
// SHA extensions from OpenSSL, so the HMAC is counted on its AVX2 code path (more instructions
// than on the real CPU), and kernel time (socket reads and writes) is not counted at all.
import { spawn, spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { pushPayload } from './payloads.js';

const WARM = Number(process.env.BENCH_WARM_REQUESTS ?? 3000);
const MEASURED = Number(process.env.BENCH_MEASURED_REQUESTS ?? 4000);
const receivers = (process.env.BENCH_RECEIVERS ?? 'http,bare,sluice,octokit').split(',');
const secret = randomBytes(24).toString('hex');
const body = pushPayload();
const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

if (spawnSync('valgrind', ['--version'], { stdio: 'ignore' }).status !== 0) {
  console.log('valgrind is not installed (apt-get install valgrind): nothing measured');
  process.exit(0);
}

/** Main-thread instructions of one receiver process that answered `requests` deliveries. */
async function countInstructions(which: string, requests: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'webhooks-callgrind-'));
  const script = fileURLToPath(new URL('./server.ts', import.meta.url));
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--separate-threads=yes',
      // V8 writes machine code at run time.
      '--smc-check=all-non-file',
      `--callgrind-out-file=${join(dir, 'callgrind.out')}`,
      process.execPath,
      '--import',
      'tsx',
      script,
      which,
    ],
    { env: { ...process.env, BENCH_SECRET: secret }, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`${which} exited with ${code}`)));
      child.stdout?.once('data', (data: Buffer) => resolve(Number(String(data).trim())));
    });
    const prefix = which === 'octokit' ? 'x-github' : 'x-provider';
    const result = await autocannon({
      url: `http://127.0.0.1:${port}/api/hosting/webhooks`,
      method: 'POST',
      connections: 8,
      amount: requests,
      timeout: 120,
      headers: {
        'content-type': 'application/json',
        [`${prefix}-event`]: 'push',
        [`${prefix}-delivery`]: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
        'x-hub-signature-256': signature,
      },
      body,
    });
    if (result.requests.total !== requests || result.non2xx > 0 || result.errors > 0) {
      throw new Error(`${which}: ${result.requests.total} answered, ${result.non2xx} non-2xx`);
    }
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    // Thread 1 is the main thread: callgrind.out-01.
    const main = readdirSync(dir).find((file) => file.endsWith('-01'));
    if (main === undefined) throw new Error(`${which}: no callgrind output for the main thread`);
    const totals = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, main), 'utf8'));
    if (totals === null) throw new Error(`${which}: no totals in ${main}`);
    return Number(totals[1]);
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(
  `instructions per request, main thread, ${MEASURED} requests after ${WARM} warm-up requests (${(Buffer.byteLength(body) / 1024).toFixed(1)} KiB signed push)`,
);
const perRequest: Record<string, number> = {};
for (const which of receivers) {
  const warm = await countInstructions(which, WARM);
  const total = await countInstructions(which, WARM + MEASURED);
  perRequest[which] = (total - warm) / MEASURED;
  console.log(`${which.padEnd(8)} ${Math.round(perRequest[which] ?? 0).toLocaleString('en-US')}`);
}
const floor = perRequest.bare;
if (floor !== undefined) {
  for (const which of receivers.filter((name) => name !== 'bare' && name !== 'http')) {
    const count = perRequest[which] ?? 0;
    console.log(`${which}: ${(count / floor).toFixed(3)}x the bare floor`);
  }
}
