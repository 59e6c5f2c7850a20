/**
 * Runs `sluice-chain index` (the built CLI users run: `node dist/cli.js index`, defaults, one
 * chain from RPC_URL_<id>) cold into a fresh PostgreSQL database, and follows its checkpoint
 * every 200 ms until it reaches the head. Progress is converted to events with the history's
 * per-block counts, which separates start-up (until the first batch is committed) from the
 * steady state, and shows whether the rate falls as history grows (quarters).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freshDatabase } from './bench-database.js';
import { processMeter } from './process-meter.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(packageDir, '..', '..');

export interface IndexRun {
  seconds: number;
  /** Spawn until the first committed batch. */
  startupSeconds: number;
  /** Events/s from the first committed batch to the head. */
  steadyEventsPerSec: number;
  /** Events/s in each quarter of the events (time to cross each quarter). */
  quarters: number[];
  peakRssBytes: number;
  cpuSeconds: number;
  dbBytes: number;
  /** The largest tables at the end: heap (with TOAST) and indexes, bytes. */
  tables: { name: string; rows: number; heapBytes: number; indexBytes: number }[];
  log: string;
}

/** The largest tables of the run's schema: rows, heap with TOAST, and index bytes (after timing). */
async function tableSizes(poll: pg.Client): Promise<IndexRun['tables']> {
  const { rows } = await poll.query<{ name: string; heap: string; idx: string }>(
    `select c.relname as name,
            (pg_total_relation_size(c.oid) - pg_indexes_size(c.oid))::text as heap,
            pg_indexes_size(c.oid)::text as idx
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind = 'r' and n.nspname = current_schema()
      order by pg_total_relation_size(c.oid) desc limit 8`,
  );
  const counted: IndexRun['tables'] = [];
  for (const r of rows) {
    const n = await poll.query<{ n: string }>(`select count(*)::text as n from "${r.name}"`);
    counted.push({
      name: r.name,
      rows: Number(n.rows[0]?.n ?? 0),
      heapBytes: Number(r.heap),
      indexBytes: Number(r.idx),
    });
  }
  return counted;
}

/** Builds the workspace (skipped when dist is newer than the sources). */
export function ensureBuilt(): void {
  const res = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'build.mjs')], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
  if (res.status !== 0) throw new Error('npm run build failed');
  if (!existsSync(join(packageDir, 'dist', 'cli.js'))) throw new Error('dist/cli.js missing');
}

/**
 * Start-up (first committed batch), steady rate after it, and the rate in each quarter of the
 * events after it from (seconds, block, events) samples.
 */
export function rates(
  samples: readonly { t: number; block: number; events: number }[],
  total: number,
): { startup: number; steady: number; quarters: number[] } {
  const first = samples.find((s) => s.block >= 0);
  const last = samples[samples.length - 1];
  if (!first || !last) return { startup: Number.NaN, steady: Number.NaN, quarters: [] };
  const steady = (last.events - first.events) / Math.max(1e-3, last.t - first.t);
  const quarters: number[] = [];
  let prev = { t: first.t, events: first.events };
  for (let q = 1; q <= 4; q++) {
    const goal = first.events + ((total - first.events) * q) / 4;
    const at = samples.find((s) => s.events >= goal) ?? last;
    quarters.push((at.events - prev.events) / Math.max(1e-3, at.t - prev.t));
    prev = at;
  }
  return { startup: first.t, steady, quarters };
}

/** Secondary indexes still deferred (none when the store has no such table). */
async function deferredLeft(poll: pg.Client): Promise<number> {
  const { rows } = await poll.query<{ t: string | null }>(
    `select to_regclass('deferred_indexes')::text as t`,
  );
  if (!rows[0]?.t) return 0;
  const left = await poll.query<{ n: number }>('select count(*)::int as n from deferred_indexes');
  return left.rows[0]?.n ?? 0;
}

/**
 * Indexes the chain at `rpcUrl` from block 0 to `head` with the CLI; `cumulative[b]` is the
 * events in blocks 0..b.
 */
export async function runSluiceCli(opts: {
  rpcUrl: string;
  chainId: number;
  head: number;
  cumulative: readonly number[];
  adminUrl: string;
  timeoutMs?: number;
  env?: Record<string, string>;
  /** Node flags before the script (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** Also write the indexer's whole output here (the run keeps only its last 100 kB). */
  logFile?: string;
}): Promise<IndexRun> {
  const db = await freshDatabase(opts.adminUrl);
  const poll = new pg.Client({ connectionString: db.url });
  await poll.connect();
  const start = performance.now();
  const script = join(packageDir, 'dist', 'cli.js');
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), script, 'index'], {
    cwd: packageDir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: db.url,
      [`RPC_URL_${opts.chainId}`]: opts.rpcUrl,
      LOG_LEVEL: 'info',
      CI: 'true',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer) => {
    out += String(d);
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  if (opts.logFile) {
    const file = createWriteStream(opts.logFile);
    child.stdout.pipe(file);
    child.stderr.pipe(file);
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const meter = processMeter(child.pid as number);
  const samples: { t: number; block: number; events: number }[] = [];
  const deadline = start + (opts.timeoutMs ?? 3_600_000);
  let done = false;
  try {
    while (!done) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`sluice-chain index exited early:\n${out.slice(-3000)}`);
      }
      if (performance.now() > deadline) throw new Error(`timed out:\n${out.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 200));
      meter.sample();
      const block = await poll
        .query<{ b: string }>(
          'select indexed_block::text as b from checkpoints where chain_id = $1',
          [opts.chainId],
        )
        .then((r) => (r.rows[0] ? Number(r.rows[0].b) : -1))
        .catch(() => -1); // tables not migrated yet
      const t = (performance.now() - start) / 1000;
      const events = block >= 0 ? (opts.cumulative[Math.min(block, opts.head)] ?? 0) : 0;
      samples.push({ t, block, events });
      // Done when the chain would report ready: at the head with the secondary indexes a cold
      // backfill deferred built again (what reads need; Ponder's end includes its indexes too).
      done = block >= opts.head && (await deferredLeft(poll)) === 0;
    }
    const seconds = (performance.now() - start) / 1000;
    meter.sample();
    child.kill('SIGTERM');
    await exited;
    const total = opts.cumulative[opts.head] ?? 0;
    const r = rates(samples, total);
    return {
      seconds,
      startupSeconds: r.startup,
      steadyEventsPerSec: r.steady,
      quarters: r.quarters,
      peakRssBytes: meter.peakRssBytes(),
      cpuSeconds: meter.cpuSeconds(),
      dbBytes: await db.grownBytes(),
      tables: await tableSizes(poll),
      log: out,
    };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await poll.end().catch(() => {});
    await db.drop().catch(() => {});
  }
}
