/**
 * Wallets-mode profile: builds the same history as `wallets-bench.ts` (smaller by
 * default), then runs the hot-wallet and cold-wallets cases `--repeat` times on fresh stores,
 * with the node behind a counting proxy. Prints, per case, the time to complete answers, each
 * backfill's phases (discover / fetch / derive / commit, from the "wallet backfilled" log line)
 * and JSON-RPC calls, bytes and node time per method. Not a benchmark: for finding where time goes.
 *
 *   npx tsx bench/wallets-profile.ts [--transfers 10000] [--cold 100] [--empty-blocks 2000]
 *     [--repeat 2] [--concurrency 8] [--rpc-per-second 100000]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import type { ChainConfig } from '../src/chains/index.js';
import { startIndexers } from '../src/wallets/start-indexers.js';
import { workloadChain } from '../test/indexer/workload-chain.js';
import { get, serveStore, waitFor } from '../test/wallets/wallets-harness.js';
import { buildWalletHistory } from './wallet-history.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1] ?? fallback) : fallback;
}
const transfers = arg('transfers', 10_000);
const cold = arg('cold', 100);
const emptyBlocks = arg('empty-blocks', 2_000);
const repeat = arg('repeat', 2);
const concurrency = arg('concurrency', 8);
const rpcPerSecond = arg('rpc-per-second', 100_000);
const seconds = (t0: number) => Math.round((performance.now() - t0) / 10) / 100;

interface MethodStats {
  calls: number;
  requests: number;
  bytesOut: number;
  errors: number;
  ms: number;
}

/** A pass-through JSON-RPC proxy counting calls, response bytes and node time per method. */
async function countingProxy(upstream: string) {
  let stats = new Map<string, MethodStats>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const t0 = performance.now();
      try {
        const up = await fetch(upstream, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        const text = await up.text();
        const ms = performance.now() - t0;
        const calls = ([] as { method: string }[]).concat(JSON.parse(body));
        let answers: unknown[] = [];
        try {
          answers = ([] as unknown[]).concat(JSON.parse(text));
        } catch {}
        const seen = new Set<string>();
        calls.forEach((c, i) => {
          const s = stats.get(c.method) ?? { calls: 0, requests: 0, bytesOut: 0, errors: 0, ms: 0 };
          s.calls++;
          const a = answers[i] as { error?: unknown } | undefined;
          s.bytesOut += a ? JSON.stringify(a).length : 0;
          if (a?.error) s.errors++;
          if (!seen.has(c.method)) {
            seen.add(c.method);
            s.requests++;
            s.ms += ms;
          }
          stats.set(c.method, s);
        });
        res.writeHead(up.status, { 'content-type': 'application/json' });
        res.end(text);
      } catch {
        res.destroy();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    take() {
      const out = stats;
      stats = new Map();
      return out;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function printRpc(stats: Map<string, MethodStats>): void {
  const rows = [...stats].sort((a, b) => b[1].ms - a[1].ms);
  console.log('  | method | calls | http requests | errors | MB out | node ms (sum per request) |');
  for (const [m, s] of rows) {
    console.log(
      `  | ${m} | ${s.calls} | ${s.requests} | ${s.errors} | ${(s.bytesOut / 1e6).toFixed(2)} | ${Math.round(s.ms)} |`,
    );
  }
}

interface Backfilled {
  wallet: string;
  transactions: number;
  ms: number;
  phases: { discover: number; fetch: number; derive: number; commit: number };
}

function printPhases(lines: Backfilled[]): void {
  if (lines.length === 0) return;
  const sum = { discover: 0, fetch: 0, derive: 0, commit: 0, total: 0, txs: 0 };
  const max = { discover: 0, fetch: 0, derive: 0, commit: 0, total: 0 };
  for (const l of lines) {
    for (const k of ['discover', 'fetch', 'derive', 'commit'] as const) {
      sum[k] += l.phases[k];
      max[k] = Math.max(max[k], l.phases[k]);
    }
    sum.total += l.ms;
    max.total = Math.max(max.total, l.ms);
    sum.txs += l.transactions;
  }
  const n = lines.length;
  const f = (k: keyof typeof max) => `${Math.round(sum[k] / n)} (max ${max[k]})`;
  console.log(
    `  backfills ${n}, txs ${sum.txs}; mean ms: discover ${f('discover')}, fetch ${f('fetch')}, derive ${f('derive')}, commit ${f('commit')}, total ${f('total')}`,
  );
}

const { anvil, w, hot, head, buildSeconds } = await buildWalletHistory({
  emptyBlocks,
  transfers,
  cold,
});
const proxy = await countingProxy(anvil.rpcUrl);
try {
  console.log(
    `history: ${head} blocks, hot wallet ${transfers} transfers, built in ${buildSeconds} s`,
  );

  for (let round = 1; round <= repeat; round++) {
    const lines: Backfilled[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const line of chunk.toString('utf8').split('\n')) {
          if (!line.includes('wallet backfilled')) continue;
          lines.push(JSON.parse(line) as Backfilled);
        }
        cb();
      },
    });
    const log = pino({ level: 'info' }, sink);
    const chain: ChainConfig = { ...workloadChain(proxy.url, w), mode: 'wallets' };
    let status = () => [] as ReturnType<Awaited<ReturnType<typeof startIndexers>>['status']>;
    const s = await serveStore(chain, { status: () => status() }, 10_000);
    const indexers = await startIndexers({
      db: s.db,
      chains: [chain],
      log,
      pollIntervalMs: 100,
      wallets: { concurrency, rpcPerSecond },
    });
    status = () => indexers.status();
    await waitFor(() => indexers.status()[0]?.ready === true, 120_000);
    let requests = 0;
    const complete = async (wallet: string) => {
      for (;;) {
        requests++;
        const page = await get(s, `/v1/evm/activity/${wallet}?chain_ids=31337&limit=100`);
        const warnings = (page.body.warnings ?? []) as { code: string }[];
        if (page.status === 200 && !warnings.some((x) => x.code === 'WALLET_BACKFILL_IN_PROGRESS'))
          return;
        await new Promise((r) => setTimeout(r, Number(page.retryAfter ?? 1) * 100));
      }
    };
    proxy.take();
    const t2 = performance.now();
    await complete(hot);
    console.log(`\nround ${round}: hot wallet complete in ${seconds(t2)} s (${requests} requests)`);
    printPhases(lines.splice(0));
    printRpc(proxy.take());
    requests = 0;
    const t3 = performance.now();
    const done: number[] = [];
    await Promise.all(
      w.wallets.slice(1, 1 + cold).map(async (x) => {
        await complete(x);
        done.push(seconds(t3));
      }),
    );
    done.sort((a, b) => a - b);
    console.log(
      `round ${round}: ${cold} cold wallets complete in ${seconds(t3)} s (${requests} requests; first ${done[0]} s, median ${done[Math.floor(done.length / 2)]} s)`,
    );
    printPhases(lines.splice(0));
    printRpc(proxy.take());
    await indexers.stop();
    await s.app.close();
    await s.t.drop();
  }
} finally {
  await proxy.close();
  await anvil.stop();
}
