/**
 * Indexing benchmark on a history shaped like a busy chain (bench/realistic-history.ts: 32
 * transactions per block, mostly 1-3 events, some heavy batches, native transfers and internal
 * calls), built once per size and cached. Each run is cold, in one invocation:
 *   1. Sluice through the CLI users run (`sluice-chain index`, defaults, PostgreSQL), as its own
 *      process: start-up vs steady state, rate per quarter of the history, peak RSS, CPU, database
 *      size and bytes per event;
 *   2. the bare eth_getLogs + COPY pipeline (the practical limit);
 *   3. the newest Ponder (bench/ponder-app, on the Node it needs) into PostgreSQL.
 * The last line of each size: `ratio-vs-ponder: <x> events: <n> share-of-bare: <y>`, events being
 * the chain's ERC20 Transfer events (what Ponder's app indexes; Sluice derives more from them).
 *
 *   npm run bench:index -w @sluice/chain-api -- [--events 100000[,1000000,...]] [--skip-ponder]
 *     [--skip-bare] [--skip-sluice] [--ponder-pglite] [--cpu-prof <dir>] [--sluice-env K=V,...]
 *     [--sluice-log <file>] [--sluice-node-args '<node flags>'] [--tx-per-block 32]
 *
 * Environment: TEST_DATABASE_URL (the server the runs' databases are created on),
 * SLUICE_BENCH_CACHE (where built histories are kept; default bench/.cache).
 */
import { testDatabaseUrl } from '@sluice/db/testing';
import pg from 'pg';
import { runBarePipeline } from './bare-pipeline.js';
import { freshDatabase } from './bench-database.js';
import { openHistory } from './realistic-history.js';
import { installPonder, type PonderRun, ponderUnavailable, runPonder } from './run-ponder.js';
import { ensureBuilt, type IndexRun, runSluiceCli } from './run-sluice-cli.js';

const CHAIN_ID = 31337;
const argOf = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const flag = (name: string) => process.argv.includes(`--${name}`);
const sizes = (argOf('events') ?? '100000').split(',').map((s) => {
  const n = Number(s.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 1000)
    throw new Error(`--events: expected integers >= 1000, got ${s}`);
  return n;
});

// --tx-per-block N: the history's transactions per block (default 32, a busy chain; 1-2 is a
// quiet chain, or what anvil's automine makes): per-block costs weigh more, events per block less.
// Checked here, where the flag is parsed (openHistory takes it as given).
const txPerBlock = Number(argOf('tx-per-block') ?? 32);
if (!Number.isInteger(txPerBlock) || txPerBlock < 1)
  throw new Error(`--tx-per-block: expected an integer >= 1, got ${argOf('tx-per-block')}`);

const adminUrl = testDatabaseUrl();
const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const num = (n: number) => Math.round(n).toLocaleString('en-US');

if (!flag('skip-sluice')) ensureBuilt();
let ponderMissing: string | undefined;
if (!flag('skip-ponder')) {
  installPonder();
  ponderMissing = ponderUnavailable();
  if (ponderMissing) console.log(`Ponder cannot run here: ${ponderMissing}`);
}

const finals: string[] = [];
for (const events of sizes) {
  const history = await openHistory({ events, txPerBlock });
  const { manifest, anvil } = history;
  const n = manifest.transfers;
  console.log(
    `\n## ${num(n)} Transfer events: ${num(manifest.head + 1)} blocks, ${num(manifest.txs)} txs, ${num(manifest.logs)} logs`,
  );
  let sluice: IndexRun | undefined;
  let bareSeconds: number | undefined;
  let ponder: PonderRun | undefined;
  try {
    if (!flag('skip-sluice')) {
      sluice = await runSluiceCli({
        rpcUrl: anvil.rpcUrl,
        chainId: CHAIN_ID,
        head: manifest.head,
        cumulative: manifest.cumulative,
        adminUrl,
        // --sluice-env A=1,B=2: settings of the indexer process (e.g. DEFER_INDEXES_MIN_BLOCKS=0).
        env: Object.fromEntries(
          (argOf('sluice-env') ?? '')
            .split(',')
            .filter((kv) => kv.includes('='))
            .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
        ),
        // --cpu-prof <dir>: a V8 CPU profile of the indexer process (written when it stops).
        // --sluice-node-args '<flags>': more Node flags of the indexer (e.g. '--trace-gc').
        nodeArgs: [
          ...(argOf('cpu-prof') ? ['--cpu-prof', `--cpu-prof-dir=${argOf('cpu-prof')}`] : []),
          ...(argOf('sluice-node-args')?.split(' ').filter(Boolean) ?? []),
        ],
        // --sluice-log <file>: the indexer's whole output (logs, and --trace-gc lines when asked).
        ...(argOf('sluice-log') ? { logFile: argOf('sluice-log') } : {}),
      });
      console.log(
        `sluice: ${sluice.seconds.toFixed(1)} s, first batch after ${sluice.startupSeconds.toFixed(1)} s, ` +
          `steady ${num(sluice.steadyEventsPerSec)} ev/s, quarters ${sluice.quarters.map(num).join(' / ')} ev/s, ` +
          `CPU ${sluice.cpuSeconds.toFixed(1)} s, peak RSS ${mb(sluice.peakRssBytes)}, db ${mb(sluice.dbBytes)}`,
      );
      // Where the bytes per event go: the largest tables, heap (with TOAST) + indexes.
      console.log(
        `sluice tables: ${sluice.tables
          .map(
            (t) =>
              `${t.name} ${mb(t.heapBytes + t.indexBytes)} (${num(t.rows)} rows, indexes ${mb(t.indexBytes)}, ${num((t.heapBytes + t.indexBytes) / n)} B/event)`,
          )
          .join('; ')}`,
      );
      // The indexer's own stage times (ms, summed over concurrent batches) when it reached the head.
      const stages = /^.*"msg":"backfill reached the head".*$/m.exec(sluice.log);
      if (stages) console.log(`sluice stages: ${stages[0]}`);
    }
    if (!flag('skip-bare')) {
      const db = await freshDatabase(adminUrl);
      const pool = new pg.Pool({ connectionString: db.url, max: 2 });
      try {
        const t0 = performance.now();
        const copied = await runBarePipeline(pool, anvil.rpcUrl, manifest.head, 'bare_transfers');
        bareSeconds = (performance.now() - t0) / 1000;
        if (copied !== n)
          throw new Error(`bare pipeline copied ${copied} transfers, expected ${n}`);
        console.log(`bare: ${bareSeconds.toFixed(1)} s`);
      } finally {
        await pool.end();
        await db.drop();
      }
    }
    if (!flag('skip-ponder') && !ponderMissing) {
      ponder = await runPonder({
        rpcUrl: anvil.rpcUrl,
        head: manifest.head,
        tokens: manifest.tokens,
        target: flag('ponder-pglite') ? 'pglite' : 'postgres',
        adminUrl,
      });
      console.log(
        `ponder ${ponder.version} (node ${ponder.node}): ${ponder.seconds.toFixed(1)} s, CPU ${ponder.cpuSeconds.toFixed(1)} s, ` +
          `peak RSS ${mb(ponder.peakRssBytes)}${ponder.dbBytes !== undefined ? `, db ${mb(ponder.dbBytes)}` : ''}`,
      );
    }
  } finally {
    await anvil.stop();
  }

  const rate = (seconds: number | undefined) => (seconds ? n / seconds : undefined);
  const sRate = rate(sluice?.seconds);
  const bRate = rate(bareSeconds);
  const pRate = rate(ponder?.seconds);
  console.log(
    '\n| run | seconds | ev/s | first batch s | steady ev/s | peak RSS | CPU s | db | bytes/event |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  if (sluice && sRate) {
    console.log(
      `| Sluice CLI -> PostgreSQL | ${sluice.seconds.toFixed(1)} | ${num(sRate)} | ${sluice.startupSeconds.toFixed(1)} | ${num(sluice.steadyEventsPerSec)} | ${mb(sluice.peakRssBytes)} | ${sluice.cpuSeconds.toFixed(1)} | ${mb(sluice.dbBytes)} | ${num(sluice.dbBytes / n)} |`,
    );
  }
  if (bareSeconds && bRate) {
    console.log(
      `| bare getLogs+COPY -> PostgreSQL | ${bareSeconds.toFixed(1)} | ${num(bRate)} | | | | | | |`,
    );
  }
  if (ponder && pRate) {
    const db = ponder.dbBytes;
    console.log(
      `| Ponder ${ponder.version} -> ${flag('ponder-pglite') ? 'PGlite' : 'PostgreSQL'} | ${ponder.seconds.toFixed(1)} | ${num(pRate)} | | | ${mb(ponder.peakRssBytes)} | ${ponder.cpuSeconds.toFixed(1)} | ${db === undefined ? '-' : mb(db)} | ${db === undefined ? '-' : num(db / n)} |`,
    );
  }
  const ratio = sRate && pRate ? (sRate / pRate).toFixed(2) : 'n/a';
  const share = sRate && bRate ? (sRate / bRate).toFixed(2) : 'n/a';
  const last = `ratio-vs-ponder: ${ratio} events: ${n} share-of-bare: ${share}`;
  finals.push(last);
  console.log(`\n${last}`);
}
if (finals.length > 1) console.log(`\n${finals.join('\n')}`);
