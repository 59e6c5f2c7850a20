/**
 * API benchmark: `npm run bench:api -w @sluice/chain-api`.
 *
 * Seeds PostgreSQL (TEST_DATABASE_URL, own schema) with a heavy wallet (10,000 activity rows,
 * 1,000 token balances, 2,000 NFTs) and 10,000 light wallets, starts `sluice-chain serve
 * --no-index` as a separate process, and drives each endpoint with autocannon on loopback
 * (50 connections): first pages and pages 100 deep. The baseline is what a user would otherwise
 * write: the same 1,000 balances read by one Multicall3 `balanceOf` batch (+ eth_getBalance)
 * against anvil, 50 requests in flight. The live case (bench/live-bench.ts) reads a mix while a
 * writer commits a block every 250 ms, with global and with scoped cache invalidation.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { migrate } from '@sluice/db';
import { createTestDatabase } from '@sluice/db/testing';
import autocannon, { type RequestSpec } from 'autocannon';
import {
  createPublicClient,
  encodeAbiParameters,
  erc20Abi,
  http,
  keccak256,
  numberToHex,
  pad,
} from 'viem';
import { MULTICALL3_ADDRESS } from '../src/chains/index.js';
import { compileContracts, startAnvil } from '../src/devnet/index.js';
import { createKeyStore } from '../src/keys/key-store.js';
import { storeMigrations } from '../src/store/migrations.js';
import { startCli } from '../test/support/cli-process.js';
import { setCheckpoint } from '../test/support/seed-store.js';
import { type BenchCase, seedSurfaceStore, surfaceCases } from './api-bench-surface.js';
import { benchLive } from './live-bench.js';
import { ensureBuilt } from './run-sluice-cli.js';
import { type BenchStore, seedBenchStore } from './seed-bench-store.js';

const connections = 50;
const duration = Number(process.env.BENCH_DURATION ?? 8);

/** A fresh autocannon request spec per run, for a floor driven like the case it is the floor of. */
export type FloorClient = () => RequestSpec;

interface Run {
  reqPerSec: number;
  p50: number;
  p99: number;
  errors: number;
}

interface Row extends Run {
  name: string;
  /** The same requests with `Cache-Control: no-cache`: computed from the store every time. */
  uncached?: Run;
}

function log(message: string) {
  process.stdout.write(`${message}\n`);
}

async function main() {
  // The servers run the built CLI (`dist/cli.js`), as users do: not tsx's transform of the source.
  ensureBuilt();
  const t = await createTestDatabase('postgres');
  const cleanups: (() => Promise<void>)[] = [() => t.drop()];
  try {
    await migrate(t.db, storeMigrations);
    let started = performance.now();
    const store = await seedBenchStore(t.db, Number(process.env.BENCH_LIGHT_WALLETS ?? 10_000));
    log(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    await setCheckpoint(t.db, 1, { indexedBlock: 3_000_000, backfillDone: true });
    // API-only replicas treat a chain whose indexer stopped writing as not ready: keep it fresh.
    const touch = setInterval(() => {
      void setCheckpoint(t.db, 1, { indexedBlock: 3_000_000, backfillDone: true });
    }, 5_000);
    cleanups.unshift(async () => clearInterval(touch));
    const { key } = await createKeyStore(t.db).create({ name: 'bench', rateLimit: 1_000_000_000 });
    // Rows only the later endpoints read (block headers, transactions, holders, stablecoins).
    const surface = await seedSurfaceStore(t.db, store);

    started = performance.now();
    const server = await startCli(
      ['serve', '--no-index'],
      {
        DATABASE_URL: t.url!,
        RPC_URL_1: 'http://127.0.0.1:9',
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: process.env.BENCH_SERVER_LOG_LEVEL ?? 'warn',
        // Public routes are limited per client IP; every bench connection comes from 127.0.0.1.
        RATE_LIMIT_MAX: '10000000',
        // For profiling the server: BENCH_SERVER_NODE_OPTIONS=--import=<abs>/bench/cpu-profile-preload.mjs
        // (--cpu-prof itself is not allowed in NODE_OPTIONS).
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
      'built',
    );
    cleanups.unshift(async () => {
      // With BENCH_SERVER_LOG_LEVEL=info, the server's per-request response times.
      if (process.env.BENCH_SERVER_LOG_FILE) {
        writeFileSync(process.env.BENCH_SERVER_LOG_FILE, server.output());
      }
      await server.stop();
    });
    log(`server up in ${((performance.now() - started) / 1000).toFixed(1)} s at ${server.url}`);

    // Later endpoints (transactions, token info/holders, stablecoins, search, history, portfolio).
    const surfaceRows = await surfaceCases(store, surface, (path, pages) =>
      cursorAfterPages(server.url, key, path, pages),
    );
    const rows = await benchEndpoints(server.url, key, store, surfaceRows);
    rows.push(...(await benchStaticFloor(server.url, key, store)));
    // The live case: its own servers (global vs scoped invalidation) and writer process.
    if (!process.env.BENCH_ONLY || 'live'.includes(process.env.BENCH_ONLY)) {
      rows.push(
        ...(await benchLive({
          databaseUrl: t.url!,
          key,
          store,
          connections,
          duration,
          log,
          floor: floorRun,
        })),
      );
    }
    if (process.env.BENCH_ONLY) {
      printTable(rows);
      return;
    }
    const baseline = await benchMulticall(store);
    rows.push(baseline);
    printTable(rows);
    const balances = rows.find((r) => r.name.startsWith('balances, 1,000 tokens (one page)'))!;
    log(
      `\nbalances API vs multicall baseline: ${(balances.reqPerSec / baseline.reqPerSec).toFixed(1)}x the requests/s` +
        ` (p99 ${balances.p99} ms vs ${baseline.p99} ms); uncached ${(balances.uncached!.reqPerSec / baseline.reqPerSec).toFixed(1)}x` +
        ` (p99 ${balances.uncached!.p99} ms)`,
    );
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  }
}

function toRun(result: Awaited<ReturnType<typeof autocannon>>): Run {
  return {
    reqPerSec: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

/**
 * autocannon stops with up to 50 requests in flight; the server still works through them. Waits
 * until it is idle again (two quick /health answers in a row), so no run inherits that backlog.
 */
async function waitForIdle(base: string) {
  const deadline = performance.now() + 30_000;
  let quick = 0;
  while (quick < 2 && performance.now() < deadline) {
    const started = performance.now();
    await (await fetch(`${base}/health`)).arrayBuffer();
    quick = performance.now() - started < 10 ? quick + 1 : 0;
    if (quick < 2) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function cursorAfterPages(base: string, key: string, path: string, pages: number) {
  let offset: string | undefined;
  for (let i = 0; i < pages; i++) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await fetch(`${base}${path}${offset ? `${sep}offset=${offset}` : ''}`, {
      headers: { 'x-sim-api-key': key },
    });
    const body = (await res.json()) as { next_offset?: string };
    if (!body.next_offset) throw new Error(`${path}: only ${i + 1} pages`);
    offset = body.next_offset;
  }
  return offset!;
}

async function benchEndpoints(
  base: string,
  key: string,
  store: BenchStore,
  extraCases: readonly BenchCase[] = [],
): Promise<Row[]> {
  const h = store.heavy;
  const activity = `/v1/evm/activity/${h}?limit=20`;
  const balances10 = `/v1/evm/balances/${h}?limit=10`;
  const collectibles = `/v1/evm/collectibles/${h}?limit=20`;
  const deep = {
    activity: await cursorAfterPages(base, key, activity, 99),
    balances: await cursorAfterPages(base, key, balances10, 99),
    collectibles: await cursorAfterPages(base, key, collectibles, 99),
  };
  const randomLight = () => store.light[Math.floor(Math.random() * store.light.length)]!;
  const cases: { name: string; path: string | (() => string) }[] = [
    { name: 'activity, first page (20)', path: activity },
    { name: 'activity, page 100 (20)', path: `${activity}&offset=${deep.activity}` },
    { name: 'activity, light wallets', path: () => `/v1/evm/activity/${randomLight()}` },
    { name: 'balances, 1,000 tokens (one page)', path: `/v1/evm/balances/${h}` },
    {
      name: 'balances, 1,000 tokens + history 1,24,168 + metadata',
      path: `/v1/evm/balances/${h}?historical_prices=1,24,168&metadata=logo,url,pools`,
    },
    { name: 'balances, first page (10)', path: balances10 },
    { name: 'balances, page 100 (10)', path: `${balances10}&offset=${deep.balances}` },
    { name: 'balances, light wallets', path: () => `/v1/evm/balances/${randomLight()}` },
    {
      name: 'single token balance',
      path: `/v1/evm/balances/${h}/token/${store.tokens[500]!.address}?chain_ids=1`,
    },
    { name: 'collectibles, first page (20)', path: collectibles },
    { name: 'collectibles, page 100 (20)', path: `${collectibles}&offset=${deep.collectibles}` },
    { name: 'collectibles, light wallets', path: () => `/v1/evm/collectibles/${randomLight()}` },
    { name: 'supported-chains', path: '/v1/evm/supported-chains' },
    ...extraCases,
  ];
  const rows: Row[] = [];
  const run = async (
    path: string | (() => string),
    extra: Record<string, string>,
    seconds = duration,
  ) => {
    const result = await autocannon({
      url: base,
      connections,
      duration: seconds,
      headers: { 'x-sim-api-key': key, 'accept-encoding': 'identity', ...extra },
      requests: [
        typeof path === 'string'
          ? { method: 'GET', path }
          : { method: 'GET', setupRequest: (req) => ({ ...req, path: path() }) },
      ],
    });
    await waitForIdle(base);
    return toRun(result);
  };
  const show = (r: Run) =>
    `${r.reqPerSec} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors}`;
  // BENCH_ONLY: a substring of case names, or several separated by `|`.
  const only = process.env.BENCH_ONLY?.split('|');
  for (const c of cases) {
    if (only && !only.some((part) => c.name.includes(part))) continue;
    // Each measurement follows a 1-s warm-up of the same load (JIT, pools, caches), as usual.
    // Uncached first, so the cached run does not start from entries the other one left.
    await run(c.path, { 'cache-control': 'no-cache' }, 1);
    const uncached = await run(c.path, { 'cache-control': 'no-cache' });
    await run(c.path, {}, 1);
    const cached = await run(c.path, {});
    const row: Row = { name: c.name, ...cached, uncached };
    log(`${row.name}: cached ${show(cached)} | uncached ${show(uncached)}`);
    rows.push(row);
  }
  return rows;
}

/**
 * A bare node:http server sending a fixed body as large as the heavy balances page and as a
 * collectibles page: the best any server could do for those sizes at 50 connections here.
 */
async function benchStaticFloor(base: string, key: string, store: BenchStore): Promise<Row[]> {
  const sizeOf = async (path: string) => {
    const res = await fetch(`${base}${path}`, {
      headers: { 'x-sim-api-key': key, 'accept-encoding': 'identity' },
    });
    return (await res.arrayBuffer()).byteLength;
  };
  const sizes = [
    await sizeOf(`/v1/evm/balances/${store.heavy}`),
    await sizeOf(`/v1/evm/collectibles/${store.heavy}?limit=20`),
  ];
  const rows: Row[] = [];
  for (const size of sizes) rows.push(await floorRun(size));
  return rows;
}

/**
 * The floor for one body size: its own server process, a 1-s warm-up, one measured run. With
 * `client`, autocannon drives it the way the measured case does (a path per request, a callback
 * per response): on two cores the load generator's own work is a share of the machine, so a
 * ratio compares servers only when both were driven alike.
 */
async function floorRun(size: number, client?: FloorClient): Promise<Row> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      fileURLToPath(new URL('./static-floor-server.ts', import.meta.url)),
      String(size),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const port = await new Promise<string>((resolve, reject) => {
      child.stdout.once('data', (chunk) => resolve(String(chunk).trim()));
      child.once('exit', (code) => reject(new Error(`static server exited with ${code}`)));
    });
    const url = `http://127.0.0.1:${port}`;
    const requests = client ? [client()] : undefined;
    await autocannon({ url, connections, duration: 1, ...(requests ? { requests } : {}) });
    const result = await autocannon({
      url,
      connections,
      duration,
      ...(requests ? { requests } : {}),
    });
    const row: Row = {
      name: `floor: bare node:http, fixed ${(size / 1024).toFixed(1)} KiB body${client ? ', driven like the mix' : ''}`,
      ...toRun(result),
    };
    log(`${row.name}: ${row.reqPerSec} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms`);
    return row;
  } finally {
    child.kill('SIGTERM');
  }
}

/** The same 1,000 balances (+ native) read straight from the node with Multicall3. */
async function benchMulticall(store: BenchStore): Promise<Row> {
  const contracts = await compileContracts();
  const anvil = await startAnvil();
  try {
    const client = createPublicClient({ transport: http(anvil.rpcUrl) });
    const rpc = (method: string, params: unknown[]) =>
      client.request({ method: method as 'eth_chainId', params: params as never });
    await rpc('anvil_setCode', [MULTICALL3_ADDRESS, contracts.Multicall3!.deployedBytecode]);
    await rpc('anvil_setBalance', [store.heavy, numberToHex(5n * 10n ** 18n)]);
    for (const token of store.tokens) {
      await rpc('anvil_setCode', [token.address, contracts.DevToken!.deployedBytecode]);
      // OpenZeppelin ERC20 keeps `_balances` at slot 0.
      const slot = keccak256(
        encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [store.heavy, 0n]),
      );
      await rpc('anvil_setStorageAt', [
        token.address,
        slot,
        pad(numberToHex(token.amount), { size: 32 }),
      ]);
    }
    const read = async () => {
      const [balances, native] = await Promise.all([
        client.multicall({
          contracts: store.tokens.map((token) => ({
            address: token.address,
            abi: erc20Abi,
            functionName: 'balanceOf' as const,
            args: [store.heavy] as const,
          })),
          multicallAddress: MULTICALL3_ADDRESS,
          batchSize: 0,
        }),
        client.getBalance({ address: store.heavy }),
      ]);
      return { balances, native };
    };
    const check = await read();
    if (
      check.balances[500]?.result !== store.tokens[500]!.amount ||
      check.native !== 5n * 10n ** 18n
    ) {
      throw new Error('baseline setup: balances read back wrong');
    }
    const latencies: number[] = [];
    let errors = 0;
    const end = performance.now() + duration * 1000;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < end) {
          const start = performance.now();
          try {
            await read();
            latencies.push(performance.now() - start);
          } catch {
            errors++;
          }
        }
      }),
    );
    latencies.sort((a, b) => a - b);
    const pct = (p: number) =>
      Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!);
    const row = {
      name: 'baseline: multicall balanceOf x1,000 + getBalance (anvil)',
      reqPerSec: Math.round(latencies.length / duration),
      p50: pct(0.5),
      p99: pct(0.99),
      errors,
    };
    log(
      `${row.name}: ${row.reqPerSec} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, errors ${row.errors}`,
    );
    return row;
  } finally {
    await anvil.stop();
  }
}

function printTable(rows: Row[]) {
  log(
    `\n| endpoint (${connections} connections, ${duration} s each) | req/s | p50 ms | p99 ms | uncached req/s | uncached p50 ms | uncached p99 ms | errors |`,
  );
  log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const u = r.uncached;
    const uncached = u ? `${u.reqPerSec} | ${u.p50} | ${u.p99}` : '– | – | –';
    log(
      `| ${r.name} | ${r.reqPerSec} | ${r.p50} | ${r.p99} | ${uncached} | ${r.errors + (u?.errors ?? 0)} |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
