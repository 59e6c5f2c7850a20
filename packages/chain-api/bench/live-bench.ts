/**
 * The API benchmark's live case: reads while blocks keep coming. A writer process
 * (bench/live-writer.ts) commits a block every 250 ms through the indexer's write path, touching
 * 1,000 random wallets of 100,000 (and re-pricing a few tokens), while 50 connections read a mix
 * (activity page 1, balances, collectibles, a single token balance) across the 10,000 light
 * wallets. The same run measures the cache as it was (`RESPONSE_CACHE_INVALIDATION=global`: any
 * change drops everything) and as it is (`scoped`), then `scoped` with READ_FENCE=on (each
 * request waits for a marker through the primary, as several API processes need), plus a bare
 * node:http floor for the mix's mean body size.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import autocannon, { type RequestSpec } from 'autocannon';
import { startCli } from '../test/support/cli-process.js';
import { postgresCpuSeconds, processMeter } from './process-meter.js';
import type { BenchStore } from './seed-bench-store.js';

export interface LiveRun {
  name: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  errors: number;
}

export interface LiveBenchOptions {
  databaseUrl: string;
  key: string;
  store: BenchStore;
  connections: number;
  duration: number;
  log(message: string): void;
  /** Runs the floor server for a body size (api-bench.ts's static floor), driven by `client`. */
  floor(size: number, client?: () => RequestSpec): Promise<LiveRun>;
}

const blockMs = Number(process.env.LIVE_BLOCK_MS ?? 250);
const touch = Number(process.env.LIVE_TOUCH ?? 1_000);
const universe = Number(process.env.LIVE_UNIVERSE ?? 100_000);

/** The mix: one of four endpoints of one of the light wallets, each equally likely. */
function mixPaths(store: BenchStore): string[] {
  return store.light.flatMap((wallet, w) => [
    `/v1/evm/activity/${wallet}`,
    `/v1/evm/balances/${wallet}`,
    `/v1/evm/collectibles/${wallet}`,
    // A token the wallet holds (seed-bench-store.ts gives light wallet w tokens (3w + k) % 200).
    `/v1/evm/balances/${wallet}/token/${store.tokens[(w * 3) % 200]!.address}?chain_ids=1`,
  ]);
}

/**
 * The mix's request spec: a random path per request, a callback per response. The floor is
 * driven by the same spec (its callback's tallies thrown away), so both pay the same client cost.
 */
function mixRequest(
  paths: readonly string[],
  onPath: (path: string) => string,
  onResponse: (outcome: string, bytes: number) => void,
): RequestSpec {
  return {
    method: 'GET',
    setupRequest: (req) => ({
      ...req,
      path: onPath(paths[Math.floor(Math.random() * paths.length)]!),
    }),
    onResponse: (_status, body, _context, responseHeaders) =>
      onResponse(String(responseHeaders?.['x-cache'] ?? 'none'), body?.length ?? 0),
  };
}

/** Starts the writer; resolves once it commits blocks. `stop` returns its stats line. */
async function startWriter(databaseUrl: string): Promise<{ pid: number; stop(): Promise<string> }> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./live-writer.ts', import.meta.url))],
    {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        LIVE_READ_WALLETS: String(Number(process.env.BENCH_LIGHT_WALLETS ?? 10_000)),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout!.on('data', (chunk) => {
    out += String(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopped: Promise<string> | undefined;
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (out.includes('ready\n')) resolve();
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`live writer exited with ${code}`)));
  });
  return {
    pid: child.pid!,
    stop() {
      stopped ??= (async () => {
        child.kill('SIGTERM');
        await exited;
        return (
          out
            .split('\n')
            .filter((line) => line.startsWith('{'))
            .at(-1) ?? '{}'
        );
      })();
      return stopped;
    },
  };
}

/** One mode: its own server, the writer running, every URL fetched once, then measured. */
async function runMode(
  opts: LiveBenchOptions,
  mode: 'global' | 'scoped',
  paths: string[],
  fence = false,
): Promise<{ run: LiveRun; bytes: number; responses: number; lateBlocks: number }> {
  const server = await startCli(
    ['serve', '--no-index'],
    {
      DATABASE_URL: opts.databaseUrl,
      RPC_URL_1: 'http://127.0.0.1:9',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '10000000',
      RESPONSE_CACHE_INVALIDATION: mode,
      // One process: the fence is off by default; on, each request waits for a marker through
      // the primary (what several API processes behind one address need).
      READ_FENCE: fence ? 'on' : 'off',
      // 10,000 wallets x 4 answers, with the rows live answers keep for re-pricing.
      RESPONSE_CACHE_MB: process.env.LIVE_CACHE_MB ?? '256',
      // The server's default unless set (connections of the API's read pool).
      ...(process.env.DB_POOL_SIZE ? { DB_POOL_SIZE: process.env.DB_POOL_SIZE } : {}),
      // The server's default unless set: how long an entry lives without a change naming it.
      ...(process.env.LIVE_CACHE_MAX_AGE_S
        ? { RESPONSE_CACHE_MAX_AGE_S: process.env.LIVE_CACHE_MAX_AGE_S }
        : {}),
      ...(process.env.BENCH_SERVER_NODE_OPTIONS
        ? {
            NODE_OPTIONS: process.env.BENCH_SERVER_NODE_OPTIONS,
            // Where bench/cpu-profile-preload.mjs writes (the server's env is not the bench's).
            CPU_PROFILE_DIR: process.env.CPU_PROFILE_DIR ?? process.cwd(),
          }
        : {}),
    },
    180_000,
    true,
    // The built CLI, as users run it (api-bench.ts builds it first).
    'built',
  );
  const writer = await startWriter(opts.databaseUrl);
  try {
    const headers = { 'x-sim-api-key': opts.key, 'accept-encoding': 'identity' };
    const outcomes = new Map<string, number>();
    // When each path was last asked for: a key idle longer than the cache's max age (600 s by
    // default) misses whatever the writer did, so that share is reported apart.
    const lastAsked = new Map<string, number>();
    const maxAgeMs = 1000 * Number(process.env.LIVE_CACHE_MAX_AGE_S ?? 600);
    let asked = 0;
    let idle = 0;
    const ask = (path: string, count: boolean) => {
      const now = Date.now();
      const last = lastAsked.get(path);
      if (count) {
        asked++;
        if (last === undefined || now - last > maxAgeMs) idle++;
      }
      lastAsked.set(path, now);
      return path;
    };
    let next = 0;
    // Every URL once (in order), so the measured run starts from a full cache, as a server
    // that has been up for a while would.
    await autocannon({
      url: server.url,
      connections: opts.connections,
      amount: paths.length,
      headers,
      requests: [
        {
          method: 'GET',
          setupRequest: (req) => ({ ...req, path: ask(paths[next++ % paths.length]!, false) }),
        },
      ],
    });
    let bytes = 0;
    let responses = 0;
    // LIVE_RATE: a fixed offered rate (req/s) instead of as fast as answered. At saturation the
    // miss rate follows the rate reached (a faster server asks each URL more often, so fewer of
    // its answers changed), which couples the server's cost per request to its speed; at a fixed
    // rate the workload is the same whatever the server, so two builds compare by CPU/request.
    const rate = process.env.LIVE_RATE ? Number(process.env.LIVE_RATE) : undefined;
    const measure = (seconds: number, count: boolean) =>
      autocannon({
        url: server.url,
        connections: opts.connections,
        duration: seconds,
        ...(rate ? { overallRate: rate } : {}),
        headers,
        requests: [
          mixRequest(
            paths,
            (path) => ask(path, count),
            (outcome, size) => {
              if (!count) return;
              outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
              bytes += size;
              responses++;
            },
          ),
        ],
      });
    // LIVE_WARMUP_S: how long the mix runs before the measured window (default 2 s).
    await measure(Number(process.env.LIVE_WARMUP_S ?? 2), false);
    // LIVE_PROFILE=1 with bench/cpu-profile-preload.mjs in BENCH_SERVER_NODE_OPTIONS: the server's
    // CPU profile of the measured window only (not the fill of every URL before it).
    const profile = process.env.LIVE_PROFILE === '1';
    if (profile) server.child.kill('SIGUSR2');
    // Where the machine's CPU went in the measured window (Linux /proc): the server, the local
    // PostgreSQL, the writer and this process (the load generator).
    const meters = [processMeter(server.child.pid!), processMeter(writer.pid)];
    for (const m of meters) m.sample();
    const cpu0 = meters.map((m) => m.cpuSeconds());
    const pg0 = postgresCpuSeconds();
    const own0 = process.cpuUsage();
    // The writer counts its late blocks of the measured window apart (SIGUSR2 at both ends).
    process.kill(writer.pid, 'SIGUSR2');
    const result = await measure(opts.duration, true);
    process.kill(writer.pid, 'SIGUSR2');
    for (const m of meters) m.sample();
    const own = process.cpuUsage(own0);
    const pgSeconds = postgresCpuSeconds() - pg0;
    const [serverCpu, writerCpu] = meters.map((m, i) => m.cpuSeconds() - cpu0[i]!);
    if (profile) server.child.kill('SIGUSR2');
    const writerStats = await writer.stop();
    const shares = [...outcomes]
      .sort((x, y) => y[1] - x[1])
      .map(([outcome, n]) => `${outcome} ${((100 * n) / Math.max(1, responses)).toFixed(1)}%`)
      .join(', ');
    const run: LiveRun = {
      name: `live mix while indexing, ${mode === 'global' ? 'global invalidation (the earlier design)' : 'scoped invalidation'}${fence ? ', READ_FENCE=on' : ''}`,
      reqPerSec: Math.round(result.requests.average),
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts + result.non2xx,
    };
    const perRequest = (seconds: number) =>
      `${Math.round((1e6 * seconds) / Math.max(1, result.requests.total))} µs`;
    opts.log(
      `CPU in the measured ${opts.duration} s: server ${serverCpu!.toFixed(2)} s (${perRequest(serverCpu!)}/request), ` +
        `PostgreSQL ${pgSeconds.toFixed(2)} s (${perRequest(pgSeconds)}/request, the writer's share included), ` +
        `writer ${writerCpu!.toFixed(2)} s, load generator ${((own.user + own.system) / 1e6).toFixed(2)} s`,
    );
    opts.log(
      `${run.name}: ${run.reqPerSec} req/s, p50 ${run.p50} ms, p99 ${run.p99} ms, errors ${run.errors}; x-cache: ${shares} (keys never asked or idle past the max age: ${((100 * idle) / Math.max(1, asked)).toFixed(1)}%); writer: ${writerStats}`,
    );
    // The live mix's own late blocks: those of the measured window (the fill before it asks
    // every URL once, all misses, and the writer's stats show the whole run's count as `late`).
    const lateBlocks = Number(
      (JSON.parse(writerStats) as { lateInWindow?: number }).lateInWindow ?? Number.NaN,
    );
    return { run, bytes, responses, lateBlocks };
  } finally {
    await writer.stop().catch(() => '');
    // LIVE_SERVER_LOG_FILE: the live server's output (its GC trace, say, from a preload in
    // BENCH_SERVER_NODE_OPTIONS that sets --trace-gc-nvp, a flag NODE_OPTIONS does not allow).
    if (process.env.LIVE_SERVER_LOG_FILE)
      writeFileSync(process.env.LIVE_SERVER_LOG_FILE, server.output());
    await server.stop();
  }
}

/**
 * The live case: global, then scoped invalidation (without, then with READ_FENCE), then the floor
 * for the mix's mean body size.
 *
 * @example
 * rows.push(...(await benchLive({ databaseUrl, key, store, connections: 50, duration: 8, log, floor })));
 */
export async function benchLive(opts: LiveBenchOptions): Promise<LiveRun[]> {
  opts.log(
    `\nlive case: a block every ${blockMs} ms touching ${touch} of ${universe} wallets; mix over ${opts.store.light.length} wallets`,
  );
  const paths = mixPaths(opts.store);
  // LIVE_MODES (comma-separated of global, scoped, fenced): fewer modes for a quick comparison.
  const modes = new Set((process.env.LIVE_MODES ?? 'global,scoped,fenced').split(','));
  const runs: LiveRun[] = [];
  if (modes.has('global')) runs.push((await runMode(opts, 'global', paths)).run);
  const scoped = await runMode(opts, 'scoped', paths);
  runs.push(scoped.run);
  if (modes.has('fenced')) runs.push((await runMode(opts, 'scoped', paths, true)).run);
  const mean = Math.round(scoped.bytes / Math.max(1, scoped.responses));
  const plain = await opts.floor(Math.max(2, mean));
  runs.push({ ...plain, name: `floor: bare node:http, fixed ${mean} B body, one fixed path` });
  // The floor the goal is measured against: the same body size, driven like the mix (a random
  // path of the mix per request, the same per-response callback).
  const floor = await opts.floor(Math.max(2, mean), () =>
    mixRequest(
      paths,
      (path) => path,
      () => {},
    ),
  );
  runs.push({
    ...floor,
    name: `floor: bare node:http, fixed ${mean} B body (live mix mean), driven like the mix`,
  });
  // The goal, as ratios within this run (the scoped mode, as served): share of the floor's
  // req/s for the same mean body and request stream, p99 against the floor's, and blocks the
  // writer committed late while the mix was measured (the writer's `late` counts the whole run,
  // the cold fill included). The share of the one-path floor is shown beside it.
  const share = scoped.run.reqPerSec / Math.max(1, floor.reqPerSec);
  const p99Ratio = scoped.run.p99 / Math.max(1, floor.p99);
  opts.log(
    `share of the one-path floor: ${(scoped.run.reqPerSec / Math.max(1, plain.reqPerSec)).toFixed(3)} (p99 ratio ${(scoped.run.p99 / Math.max(1, plain.p99)).toFixed(1)})`,
  );
  opts.log(
    `live-share-of-floor: ${share.toFixed(3)} p99-ratio: ${p99Ratio.toFixed(1)} late-blocks: ${scoped.lateBlocks}`,
  );
  return runs;
}
