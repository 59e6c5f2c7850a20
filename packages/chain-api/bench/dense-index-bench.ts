/**
 * Dense indexing benchmark (`npm run bench:index-dense`; in-process, for comparing with earlier
 * figures; `bench:index` is the realistic one run through the CLI): builds a dense history on anvil (the devnet scenario + ≥100k ERC20 transfers
 * across 1,000 wallets + ERC721 mints + router swaps), then indexes it cold, in one run:
 *   1. Sluice into PostgreSQL, 2. Sluice into PGlite, 3. a bare eth_getLogs + COPY pipeline
 *   (the practical limit), 4. Ponder (installed into bench/ponder-app when missing).
 * Sluice runs with balance reconciliation on (balanceOf reads, src/reconcile): the table reports
 * the balance reads per batch and the RPC calls they took. Its store carries every migration
 * `serve` applies (the API's indexes and change triggers too), so the figure is what users get.
 *
 *   npm run bench:index-dense -w @sluice/chain-api -- [--transfers 100000] [--wallets 1000] [--skip-pglite]
 *     [--skip-ponder] [--reconcile end|batch|off]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDatabase } from '@sluice/db';
import { createTestDatabase, testDatabaseUrl } from '@sluice/db/testing';
import pino from 'pino';
import { type IndexStats, indexOnce } from '../src/ingest/index.js';
import { storeMigrations } from '../src/store/migrations.js';
import { rpcCall } from '../test/indexer/random-workload.js';
import { runBarePipeline } from './bare-pipeline.js';
import { buildDenseHistory } from './dense-history.js';
import { installPonder, ponderUnavailable, runPonder } from './run-ponder.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1] ?? fallback) : fallback;
}
const flag = (name: string) => process.argv.includes(`--${name}`);
// --reconcile end (default) | batch | off: how deep backfill reconciles balances (for comparisons).
const reconcileMode = process.argv[process.argv.indexOf('--reconcile') + 1];
const reconcile =
  !process.argv.includes('--reconcile') || reconcileMode === 'end'
    ? { backfill: 'end' as const }
    : reconcileMode === 'batch'
      ? { backfill: 'batch' as const }
      : { enabled: false };

interface Row {
  run: string;
  /** Balance reads (pairs) per batch / JSON-RPC calls, Sluice runs only. */
  reads?: string;
  seconds: number;
  blocks: number;
  events: number;
  transfers: number;
  note: string;
}

const log = pino({ level: 'warn' });
const rows: Row[] = [];
let erc20Tokens: string[] = [];
const t0 = Date.now();
const history = await buildDenseHistory({
  transfers: arg('transfers', 100_000),
  walletCount: arg('wallets', 1_000),
  perTx: arg('per-tx', 200),
  txPerBlock: arg('tx-per-block', 2),
  nftMints: arg('nft', 2_000),
  swaps: arg('swaps', 200),
});
const url = history.devnet.rpcUrl;
const head = Number(BigInt(await rpcCall<string>(url, 'eth_blockNumber')));
console.log(
  `history: ${head + 1} blocks, ${history.erc20Transfers} sprayed ERC20 transfers to ${history.wallets.length} wallets, ` +
    `${history.nftMints} NFT mints, ${history.swaps} swaps on top of the devnet scenario (built in ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
);

try {
  // 1. Sluice -> PostgreSQL
  {
    const t = await createTestDatabase('postgres');
    await migrate(t.db, storeMigrations);
    const start = performance.now();
    const [s] = await indexOnce({ db: t.db, chains: [history.devnet.chain], log, reconcile });
    const seconds = (performance.now() - start) / 1000;
    // ERC20 Transfer logs = distinct (block, log) of ERC20 movement rows (WETH Deposit/Withdrawal aside).
    const { rows: c } = await t.db.query<{ n: string }>(
      `select count(*) as n from (select distinct block_number, log_index from activity
         where asset_type = 'erc20' and type in ('send','receive','mint','burn','transfer')
           and log_index >= 0 and extra is null) x`,
    );
    const tok = await t.db.query<{ address: string }>(
      `select address from tokens where standard = 'erc20'`,
    );
    erc20Tokens = tok.rows.map((r) => r.address);
    const act = await t.db.query<{ n: string }>('select count(*) as n from activity');
    rows.push({
      run: 'Sluice -> PostgreSQL',
      reads: readsOf(s),
      seconds,
      blocks: s?.blocks ?? 0,
      events: s?.events ?? 0,
      transfers: Number(c[0]?.n),
      note: `${act.rows[0]?.n} activity rows, balances, holdings, pools, traces, raw logs`,
    });
    console.log('sluice/postgres stage ms', s);
    await t.drop();
  }
  // 2. Sluice -> PGlite
  if (!flag('skip-pglite')) {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-'));
    const db = await openDatabase({ dataDir: dir });
    try {
      await migrate(db, storeMigrations);
      const start = performance.now();
      const [s] = await indexOnce({ db, chains: [history.devnet.chain], log, reconcile });
      const seconds = (performance.now() - start) / 1000;
      rows.push({
        run: 'Sluice -> PGlite',
        reads: readsOf(s),
        seconds,
        blocks: s?.blocks ?? 0,
        events: s?.events ?? 0,
        transfers: rows[0]?.transfers ?? 0,
        note: 'same store, embedded',
      });
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  // 3. Bare pipeline -> PostgreSQL
  {
    const t = await createTestDatabase('postgres');
    const start = performance.now();
    const n = await runBarePipeline(
      t.db.pgPool as NonNullable<typeof t.db.pgPool>,
      url,
      head,
      'bare_transfers',
    );
    const seconds = (performance.now() - start) / 1000;
    rows.push({
      run: 'bare getLogs+COPY -> PostgreSQL',
      seconds,
      blocks: head + 1,
      events: n,
      transfers: n,
      note: 'ERC20 Transfer rows only, no derivation',
    });
    await t.drop();
  }
  // 4. Ponder, installed separately in bench/ponder-app with the Node it needs (see README there).
  if (!flag('skip-ponder')) {
    installPonder();
    const missing = ponderUnavailable();
    if (missing) throw new Error(`Ponder cannot run here (${missing}): no ratio without it`);
    for (const target of ['postgres', 'pglite'] as const) {
      const r = await runPonder({
        rpcUrl: url,
        head,
        tokens: erc20Tokens,
        target,
        adminUrl: testDatabaseUrl(),
      });
      // Ponder indexes exactly the ERC20 Transfer logs of these tokens: the count Sluice found.
      const events = rows[0]?.transfers ?? 0;
      rows.push({
        run: `Ponder ${r.version} -> ${target === 'postgres' ? 'PostgreSQL' : 'PGlite'}`,
        seconds: r.seconds,
        blocks: head + 1,
        events,
        transfers: events,
        note: 'ERC20 Transfer balances app',
      });
    }
  }
} finally {
  await history.devnet.stop();
}

const bare = rows.find((r) => r.run.startsWith('bare'));
console.log(
  '\n| run | seconds | blocks/s | decoded events/s | ERC20 transfers/s | vs bare (transfers/s) | balance reads per batch (RPC calls) | what it writes |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---|');
for (const r of rows) {
  const tps = r.transfers / r.seconds;
  const ratio = bare ? `${((tps / (bare.transfers / bare.seconds)) * 100).toFixed(0)}%` : '-';
  console.log(
    `| ${r.run} | ${r.seconds.toFixed(2)} | ${(r.blocks / r.seconds).toFixed(0)} | ${(r.events / r.seconds).toFixed(0)} | ${tps.toFixed(0)} | ${ratio} | ${r.reads ?? '-'} | ${r.note} |`,
  );
}
const sluicePg = rows.find((r) => r.run === 'Sluice -> PostgreSQL');
const ponderPg = rows.find((r) => r.run.startsWith('Ponder') && r.run.endsWith('PostgreSQL'));
if (sluicePg && ponderPg) {
  const ratio = sluicePg.events / sluicePg.seconds / (ponderPg.events / ponderPg.seconds);
  console.log(
    `\nSluice (reconciliation on) vs Ponder into PostgreSQL: ${ratio.toFixed(1)}x events/s`,
  );
}

/** `N (C calls)`: average balance reads per batch and the JSON-RPC calls of all of them. */
function readsOf(s: IndexStats | undefined): string {
  if (!s || s.batches === 0) return '-';
  return `${(s.balanceReads / s.batches).toFixed(0)} (${s.balanceCalls} calls, ${s.balanceReads} reads, ${s.batches} batches)`;
}
