/**
 * Compute-unit accounting benchmark: `npm run bench:cu -w @sluice/chain-api`.
 *
 * One PostgreSQL store (TEST_DATABASE_URL, own schema) with a wallet of 50 token balances, and
 * three API servers over it, each a separate process with the response cache on: accounting
 * off, on with an unlimited key, on with a key that has a (large) quota. autocannon reads the
 * cached balances answer from each in turn, BENCH_ROUNDS times (interleaved, so drift of the
 * machine hits all alike), BENCH_DURATION seconds per run; the median req/s and server CPU time
 * per request of each, and the cost of accounting against "off", are printed. Goal: at most 3%
 * of cached req/s.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { migrate, openDatabase } from '@sluice/db';
import { createTestDatabase } from '@sluice/db/testing';
import autocannon from 'autocannon';
import { createApiServer } from '../src/api/server.js';
import { resolveChainConfig } from '../src/chains/index.js';
import { createKeyStore } from '../src/keys/key-store.js';
import { storeMigrations } from '../src/store/migrations.js';
import {
  addr,
  insertErc20Balances,
  insertTokens,
  setCheckpoint,
} from '../test/support/seed-store.js';

type Mode = 'off' | 'unlimited' | 'quota';
const modes: Mode[] = ['off', 'unlimited', 'quota'];
const connections = 50;
const duration = Number(process.env.BENCH_DURATION ?? 8);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const wallet = addr('cu-bench-wallet');
const path = `/v1/evm/balances/${wallet}?chain_ids=1`;

function log(message: string) {
  process.stdout.write(`${message}\n`);
}

/** Child process: one API server over DATABASE_URL, accounting as `mode` says. */
async function serve(mode: Mode, url: string) {
  const db = await openDatabase({ url, max: 10 });
  const chain = resolveChainConfig(1);
  const app = await createApiServer({
    db,
    chains: [chain],
    statusSource: {
      status: () => [
        {
          chain_id: 1,
          name: chain.name,
          head_block: 100,
          indexed_block: 100,
          lag_seconds: 0,
          ready: true,
        },
      ],
    },
    cursorSecret: 'bench-cursor-secret-0123456789abcdef',
    rateLimit: { max: 100_000_000, windowMs: 60_000 },
    responseCache: { maxBytes: 64 << 20, maxAgeMs: 600_000 },
    computeUnits: mode === 'off' ? false : {},
  });
  const listening = await app.listen({ port: 0, host: '127.0.0.1' });
  log(`listening on ${listening}`);
  // The parent asks for this process's CPU time around each run (µs per request is far less
  // sensitive to a busy machine than req/s).
  process.on('message', () => {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuMicros: user + system });
  });
  process.once('SIGTERM', () => {
    void app
      .close()
      .then(() => db.close())
      .then(() => process.exit(0));
  });
}

async function startServer(mode: Mode, url: string) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), 'serve', mode],
    { env: { ...process.env, DATABASE_URL: url }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
  );
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += String(chunk);
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
  const cpuMicros = () =>
    new Promise<number>((resolve) => {
      child.once('message', (m) => resolve((m as { cpuMicros: number }).cpuMicros));
      child.send('cpu');
    });
  return {
    base,
    cpuMicros,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function main() {
  const t = await createTestDatabase('postgres');
  const servers: Awaited<ReturnType<typeof startServer>>[] = [];
  try {
    await migrate(t.db, storeMigrations);
    const tokens = Array.from({ length: 50 }, (_, i) => addr('cu-bench-token', i));
    await insertTokens(
      t.db,
      tokens.map((address, i) => ({
        chainId: 1,
        address,
        standard: 'erc20' as const,
        name: `Token ${i}`,
        symbol: `T${i}`,
        decimals: 18,
      })),
    );
    await insertErc20Balances(
      t.db,
      tokens.map((token, i) => ({ chainId: 1, wallet, token, amount: `${(i + 1) * 1e15}` })),
    );
    await setCheckpoint(t.db, 1, { indexedBlock: 100, backfillDone: true });
    const keys = createKeyStore(t.db);
    const unlimited = (await keys.create({ name: 'bench unlimited' })).key;
    const quota = (await keys.create({ name: 'bench quota', cuQuota: 1e12 })).key;
    const keyOf: Record<Mode, string> = { off: unlimited, unlimited, quota };

    for (const mode of modes) servers.push(await startServer(mode, t.url!));
    const runs: Record<Mode, number[]> = { off: [], unlimited: [], quota: [] };
    const cpuPerRequest: Record<Mode, number[]> = { off: [], unlimited: [], quota: [] };
    for (let round = 0; round < rounds; round++) {
      for (const [i, mode] of modes.entries()) {
        const opts = {
          url: `${servers[i]!.base}${path}`,
          connections,
          headers: { 'x-sim-api-key': keyOf[mode], 'accept-encoding': 'identity' },
        };
        await autocannon({ ...opts, duration: 1 }); // warm: cache filled, JIT settled
        const cpuBefore = await servers[i]!.cpuMicros();
        const result = await autocannon({ ...opts, duration });
        const cpu = (await servers[i]!.cpuMicros()) - cpuBefore;
        if (result.non2xx > 0 || result.errors > 0) {
          throw new Error(`${mode}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        }
        runs[mode].push(Math.round(result.requests.average));
        cpuPerRequest[mode].push(cpu / result.requests.total);
        log(
          `round ${round + 1} ${mode}: ${runs[mode].at(-1)} req/s, ${cpuPerRequest[mode].at(-1)!.toFixed(1)} µs CPU/request`,
        );
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const off = median(runs.off);
    const offCpu = median(cpuPerRequest.off);
    log('\ncached balances (medians of rounds) and the cost of accounting against off:');
    log(
      `  ${'mode'.padEnd(10)} ${'req/s'.padStart(8)} ${'cost'.padStart(7)} ${'µs CPU/req'.padStart(11)} ${'cost'.padStart(7)}`,
    );
    for (const mode of modes) {
      const value = median(runs[mode]);
      const cpu = median(cpuPerRequest[mode]);
      const pct = (x: number) => (mode === 'off' ? '' : `${(x * 100).toFixed(1)}%`);
      log(
        `  ${mode.padEnd(10)} ${String(value).padStart(8)} ${pct((off - value) / off).padStart(7)} ${cpu.toFixed(1).padStart(11)} ${pct((cpu - offCpu) / offCpu).padStart(7)}`,
      );
    }
  } finally {
    for (const s of servers) await s.stop();
    await t.drop();
  }
}

if (process.argv[2] === 'serve') {
  await serve(process.argv[3] as Mode, process.env.DATABASE_URL!);
} else {
  await main();
}
