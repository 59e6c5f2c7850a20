import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from '@sluice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainConfig } from '../../src/chains/index.js';
import type { AnvilInstance } from '../../src/devnet/index.js';
import { createRpcClient } from '../../src/rpc/index.js';
import { discoverHistory } from '../../src/wallets/discover-history.js';
import type { TxRef } from '../../src/wallets/log-ranges.js';
import { indexOnce, startIndexers } from '../../src/wallets/start-indexers.js';
import { checkGroundTruth } from '../indexer/ground-truth.js';
import {
  deployWorkload,
  playRandomOps,
  rpcCall,
  type Workload,
} from '../indexer/random-workload.js';
import { workloadChain } from '../indexer/workload-chain.js';
import { type CliProcess, startCli } from '../support/cli-process.js';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy.js';
import { startAnvilWithEmptyHistory } from '../support/long-history.js';
import {
  alwaysReady,
  get,
  log,
  type Served,
  serveStore,
  waitFor,
  walletAnswers,
} from './wallets-harness.js';

const WALLETS = Number(process.env.WALLETS_TEST_WALLETS ?? 60);
/** Empty blocks before the activity (built fast, see long-history.ts). */
const HISTORY = Number(process.env.WALLETS_TEST_HISTORY ?? 50_000);
/** Empty blocks after each half of the activity (all of it stays within anvil's traceable range). */
const EMPTY_BLOCKS = Number(process.env.WALLETS_TEST_EMPTY_BLOCKS ?? 1_000);

let anvil: AnvilInstance;
let w: Workload;
let full: Served;
const reference = new Map<string, Record<string, unknown[]>>();
const cleanups: (() => Promise<void>)[] = [];
/** Parity trace calls (backfills prefer them when the node serves them). */
const PARITY_TRACES = /"trace_(block|transaction)"/;
/**
 * The trace calls backfills make (a follower traces new blocks with trace_block too when its
 * start-up probe found it, debug_traceBlockByNumber otherwise).
 */
const BACKFILL_TRACES = /"(debug_traceTransaction|trace_block|trace_transaction)"/;
/**
 * The full-mode reference starts after the empty history: no wallet did anything there, so its
 * answers are the same, without fetching hundreds of thousands of empty blocks twice.
 */
const referenceChain = () => workloadChain(anvil.rpcUrl, w, { startBlock: BigInt(HISTORY) });
/** Calls the proxy holds give up soon (the default is 20 s). */
const fastRpc = { timeoutMs: 2_000 };

async function mineEmpty(n: number): Promise<void> {
  for (let left = n; left > 0; left -= 100) {
    await rpcCall(anvil.rpcUrl, 'anvil_mine', [`0x${Math.min(100, left).toString(16)}`]);
  }
}

/** A wallets-mode store, its indexer and API over `rpcUrl`. */
async function walletsMode(
  rpcUrl: string,
  waitMs = 30_000,
  wallets: { maxWallets?: number; rpcPerSecond?: number } = {},
  responseCache?: { maxBytes: number; maxAgeMs: number },
) {
  const chain: ChainConfig = { ...workloadChain(rpcUrl, w), mode: 'wallets' };
  let status = () => [] as ReturnType<Awaited<ReturnType<typeof startIndexers>>['status']>;
  const s = await serveStore(chain, { status: () => status() }, waitMs, responseCache);
  const indexers = await startIndexers({
    db: s.db,
    chains: [chain],
    log,
    pollIntervalMs: 50,
    wallets,
  });
  status = () => indexers.status();
  await waitFor(() => indexers.status()[0]?.ready === true);
  const stop = async () => {
    await indexers.stop();
    await s.app.close();
    await s.t.drop();
  };
  cleanups.push(stop);
  return { s, indexers, chain };
}

/** The registry's logo of ETH as a native asset (src/chains/known-chains.ts). */
const NATIVE_ETH_LOGO =
  'https://raw.githubusercontent.com/trustwallet/assets/master/blockchains/ethereum/info/logo.png';

const timings: Record<string, number> = {};
const lap = (name: string, t0: number) => {
  timings[name] = Math.round(performance.now() - t0) / 1000;
};

beforeAll(async () => {
  let t0 = performance.now();
  anvil = await startAnvilWithEmptyHistory(HISTORY);
  lap('history', t0);
  t0 = performance.now();
  w = await deployWorkload(anvil.rpcUrl, WALLETS, 7);
  await playRandomOps(anvil.rpcUrl, w, { seed: 11, ops: WALLETS * 6, perBlock: 8 });
  await mineEmpty(EMPTY_BLOCKS);
  await playRandomOps(anvil.rpcUrl, w, { seed: 12, ops: WALLETS * 4, perBlock: 8 });
  await mineEmpty(EMPTY_BLOCKS);
  await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [true]);
  lap('activity', t0);
  timings.head = Number(BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber')));
  // Full mode over the same history: the reference answers.
  t0 = performance.now();
  const chain = referenceChain();
  full = await serveStore(chain, alwaysReady(31337));
  await indexOnce({ db: full.db, chains: [chain], log, maxBatchSize: 2_000 });
  lap('full indexing', t0);
  t0 = performance.now();
  for (const wallet of w.wallets) reference.set(wallet, await walletAnswers(full, wallet));
  lap('reference answers', t0);
}, 900_000);

afterAll(async () => {
  if (process.env.WALLETS_TEST_TIMINGS)
    console.log('wallets-mode timings (s) and head block', timings);
  for (const c of cleanups.reverse()) await c().catch(() => {});
  await full?.app.close();
  await full?.t.drop();
  await anvil?.stop();
});

describe('wallets mode answers equal full mode', () => {
  it('every wallet: activity, balances, collectibles, transactions (all pages) equal full mode and the chain', async () => {
    // The reference is not trivial: every wallet has rows in every feed.
    const count = (k: string, field: string) =>
      w.wallets.reduce(
        (n, x) =>
          n +
          (reference.get(x)?.[k] ?? []).flatMap(
            (p) => (p as Record<string, unknown[]>)[field] ?? [],
          ).length,
        0,
      );
    expect(count('activity', 'activity')).toBeGreaterThan(WALLETS * 10);
    expect(count('transactions', 'transactions')).toBeGreaterThan(WALLETS * 3);
    expect(count('balances', 'balances')).toBeGreaterThan(WALLETS * 3);
    expect(count('collectibles', 'entries')).toBeGreaterThan(0);
    const { s, indexers } = await walletsMode(anvil.rpcUrl);
    const wrong: string[] = [];
    for (const wallet of w.wallets) {
      const got = await walletAnswers(s, wallet);
      const want = reference.get(wallet);
      for (const k of Object.keys(got)) {
        if (JSON.stringify(got[k]) !== JSON.stringify(want?.[k])) wrong.push(`${wallet} ${k}`);
      }
    }
    if (wrong.length > 0) {
      const [wallet, k] = (wrong[0] as string).split(' ') as [string, string];
      const got = await walletAnswers(s, wallet);
      expect(got[k]).toEqual(reference.get(wallet)?.[k]);
    }
    expect(wrong).toEqual([]);
    const gt = await checkGroundTruth(s.db, anvil.rpcUrl, 31337);
    expect(gt.mismatches).toEqual([]);
    expect(gt.checked).toBeGreaterThan(WALLETS);
    // Every wallet asked for is tracked and ready (the counts in /health refresh every few s).
    await waitFor(() => indexers.status()[0]?.wallets?.ready === w.wallets.length, 30_000);
    const st = indexers.status()[0]?.wallets;
    expect(st).toMatchObject({ tracked: w.wallets.length, ready: w.wallets.length, pending: 0 });
    expect(['ots', 'trace']).toContain(st?.discovery);
  }, 600_000);
});

describe('discovery methods disabled (the node answers -32601)', () => {
  let proxy: FaultProxy;
  beforeAll(async () => {
    proxy = await startFaultProxy(anvil.rpcUrl);
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('backfills discovering at once share their eth_getLogs scans, each wallet gets its own refs', async () => {
    const wallets = w.wallets.slice(0, 20);
    const head = BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber'));
    const alone = createRpcClient({ url: anvil.rpcUrl });
    const want: TxRef[][] = [];
    for (const x of wallets) want.push(await discoverHistory(alone, 'ots', x, 0n, head));
    let getLogs = 0;
    proxy.setPolicy((_, body) => {
      if (body.includes('"eth_getLogs"')) getLogs++;
      return 'pass';
    });
    const shared = createRpcClient({ url: proxy.url });
    const got = await Promise.all(wallets.map((x) => discoverHistory(shared, 'ots', x, 0n, head)));
    expect(got).toEqual(want);
    expect(want.every((refs) => refs.length > 0)).toBe(true);
    // Three filters; the first wallet's go alone, the 19 queued behind them go as one each.
    expect(getLogs).toBe(6);
  }, 120_000);

  it('without ots_*: trace_filter finds the same history', async () => {
    proxy.setPolicy((_, body) => (body.includes('"ots_') ? 'methodNotFound' : 'pass'));
    // anvil caps trace_filter at 300 blocks: a 200k-block history takes thousands of calls per
    // wallet, more than the default rate limit (500/s) lets through quickly; anvil is local.
    const { s, indexers } = await walletsMode(proxy.url, 30_000, { rpcPerSecond: 20_000 });
    for (const wallet of w.wallets.slice(0, 8)) {
      expect(await walletAnswers(s, wallet)).toEqual(reference.get(wallet));
    }
    expect(indexers.status()[0]?.wallets?.discovery).toBe('trace');
  }, 300_000);

  it('without ots_* and trace_filter: logs only, with a warning; balances still equal the chain', async () => {
    proxy.setPolicy((_, body) =>
      body.includes('"ots_') || body.includes('"trace_filter"') ? 'methodNotFound' : 'pass',
    );
    const { s, indexers } = await walletsMode(proxy.url);
    for (const wallet of w.wallets.slice(0, 12)) {
      const page = await get(s, `/v1/evm/balances/${wallet}?chain_ids=31337`);
      const warnings = page.body.warnings as { code: string }[];
      expect(warnings.map((x) => x.code)).toEqual(['WALLET_HISTORY_LOGS_ONLY']);
      const want = reference.get(wallet)?.balances as Record<string, unknown>[];
      expect(page.body.balances).toEqual(want.flatMap((p) => p.balances as unknown[]));
      // Every token row found is one full mode has.
      const act = await walletAnswers(s, wallet);
      const all = (want2: unknown[]) =>
        want2.flatMap((p) => (p as { activity: unknown[] }).activity);
      const fullRows = new Set(
        all(reference.get(wallet)?.activity ?? []).map((r) => JSON.stringify(r)),
      );
      for (const r of all(act.activity ?? [])) expect(fullRows.has(JSON.stringify(r))).toBe(true);
    }
    expect(indexers.status()[0]?.wallets?.discovery).toBe('logs');
  }, 300_000);

  it('without Parity traces (trace_block, trace_transaction): debug_trace* callTracer, same answers', async () => {
    proxy.setPolicy((_, body) => (PARITY_TRACES.test(body) ? 'methodNotFound' : 'pass'));
    const { s } = await walletsMode(proxy.url);
    for (const wallet of w.wallets.slice(0, 12)) {
      expect(await walletAnswers(s, wallet)).toEqual(reference.get(wallet));
    }
  }, 300_000);

  it('a node that will not trace single transactions: their blocks are traced instead, same answers', async () => {
    // anvil answers -32001 "Resource not found" for old transactions past its in-memory index.
    proxy.setPolicy((_, body) =>
      body.includes('"debug_traceTransaction"') || PARITY_TRACES.test(body)
        ? 'methodNotFound'
        : 'pass',
    );
    const { s } = await walletsMode(proxy.url);
    for (const wallet of w.wallets.slice(0, 12)) {
      expect(await walletAnswers(s, wallet)).toEqual(reference.get(wallet));
    }
  }, 300_000);
});

describe('first requests', () => {
  it('a short wait answers with WALLET_BACKFILL_IN_PROGRESS and Retry-After, then the full answer', async () => {
    const { s } = await walletsMode(anvil.rpcUrl, 0);
    const wallet = w.wallets[3] as string;
    const first = await get(s, `/v1/evm/activity/${wallet}?chain_ids=31337&limit=7`);
    expect(first.status).toBe(200);
    expect((first.body.warnings as { code: string }[])[0]?.code).toBe(
      'WALLET_BACKFILL_IN_PROGRESS',
    );
    expect(first.retryAfter).toBe('2');
    await waitFor(async () => {
      const { rows } = await s.db.query<{ status: string }>(
        'select status from tracked_wallets where wallet = $1',
        [wallet],
      );
      return rows[0]?.status === 'ready';
    });
    expect(await walletAnswers(s, wallet)).toEqual(reference.get(wallet));
  }, 120_000);

  it('concurrent first requests share one backfill', async () => {
    const { s, indexers } = await walletsMode(anvil.rpcUrl);
    const wallet = w.wallets[5] as string;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => get(s, `/v1/evm/balances/${wallet}?chain_ids=31337&limit=3`)),
    );
    for (const a of answers)
      expect({ status: a.status, ...a.body }).toEqual((reference.get(wallet)?.balances ?? [])[0]);
    expect(indexers.status()[0]?.wallets?.completed).toBe(1);
  }, 120_000);

  it('with the response cache: a partial answer is never cached, the answer after the backfill is the full one', async () => {
    const { s } = await walletsMode(
      anvil.rpcUrl,
      0,
      {},
      { maxBytes: 10_000_000, maxAgeMs: 60_000 },
    );
    const wallet = w.wallets[13] as string;
    const path = `/v1/evm/balances/${wallet}?chain_ids=31337&limit=3`;
    const first = await get(s, path);
    expect(first.cache).toBe('bypass');
    expect((first.body.warnings as { code: string }[])[0]?.code).toBe(
      'WALLET_BACKFILL_IN_PROGRESS',
    );
    await waitFor(async () => (await trackedRow(s, wallet))?.status === 'ready');
    const after = await get(s, path);
    expect({ status: after.status, ...after.body }).toEqual(
      (reference.get(wallet)?.balances ?? [])[0],
    );
    const again = await get(s, path);
    expect(again.cache).toBe('hit');
    expect(again.body).toEqual(after.body);
  }, 120_000);

  it('POST /v1/evm/wallets/track pre-tracks (answers then need no wait), /health shows it, bad bodies get 400', async () => {
    const { s, indexers } = await walletsMode(anvil.rpcUrl, 0);
    const post = (body: unknown) =>
      fetch(`${s.url}/v1/evm/wallets/track`, {
        method: 'POST',
        headers: { 'x-sim-api-key': s.key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const some = w.wallets.slice(20, 25);
    const res = await post({ addresses: some });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ tracked: 5, chain_ids: [31337] });
    await waitFor(() => indexers.status()[0]?.wallets?.completed === 5);
    // Wait time 0: any answer not yet backfilled would carry the warning.
    for (const wallet of some)
      expect(await walletAnswers(s, wallet)).toEqual(reference.get(wallet));
    const bad = await post({ addresses: ['0x12'] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain("'addresses[0]'");
    expect((await post({ addresses: some, chain_ids: [1] })).status).toBe(400);
    expect(
      (await fetch(`${s.url}/v1/evm/wallets/track`, { method: 'POST', body: '{}' })).status,
    ).toBe(401);
    const health = (await (await fetch(`${s.url}/health`)).json()) as {
      chains: { wallets?: { completed: number; discovery: string; max_wallets: number } }[];
    };
    expect(health.chains[0]?.wallets).toMatchObject({ completed: 5, discovery: 'ots' });
  }, 120_000);

  it('beyond WALLETS_MAX the least recently requested wallets are evicted with their data', async () => {
    const { s, indexers } = await walletsMode(anvil.rpcUrl, 30_000, { maxWallets: 3 });
    const first = w.wallets.slice(30, 33);
    for (const wallet of first) await get(s, `/v1/evm/balances/${wallet}?chain_ids=31337`);
    await new Promise((r) => setTimeout(r, 1_100)); // requested_at moves at most once a second
    const later = w.wallets.slice(33, 35);
    for (const wallet of later) await get(s, `/v1/evm/balances/${wallet}?chain_ids=31337`);
    await waitFor(async () => {
      const { rows } = await s.db.query<{ n: string }>('select count(*) as n from tracked_wallets');
      return Number(rows[0]?.n) === 3;
    }, 20_000);
    const kept = await s.db.query<{ wallet: string }>(
      'select wallet from tracked_wallets order by wallet',
    );
    expect(kept.rows.map((r) => r.wallet).sort()).toEqual([first[2], ...later].sort());
    for (const gone of first.slice(0, 2)) {
      const { rows } = await s.db.query<{ n: string }>(
        `select (select count(*) from activity where wallet = $1) + (select count(*) from erc20_balances where wallet = $1)
              + (select count(*) from transactions where from_address = $1 and to_address not in (select wallet from tracked_wallets)) as n`,
        [gone],
      );
      expect(Number(rows[0]?.n)).toBe(0);
    }
    for (const wallet of later)
      expect(await walletAnswers(s, wallet)).toEqual(reference.get(wallet));
    // Asked for again, an evicted wallet is backfilled again (its new row restarts at generation 0).
    const back = first[0] as string;
    const again = await get(s, `/v1/evm/activity/${back}?chain_ids=31337&limit=7`);
    expect(again.body.warnings).toBeUndefined();
    expect(await walletAnswers(s, back)).toEqual(reference.get(back));
    expect(indexers.status()[0]?.wallets?.max_wallets).toBe(3);
  }, 120_000);
});

/** The tracking row of `wallet`. */
async function trackedRow(s: Served, wallet: string) {
  const { rows } = await s.db.query<{
    status: string;
    generation: number;
    handover_block: string | null;
  }>(
    'select status, generation, handover_block::text as handover_block from tracked_wallets where wallet = $1',
    [wallet],
  );
  return rows[0];
}

describe('crash and reorg safety', () => {
  let proxy: FaultProxy;
  beforeAll(async () => {
    proxy = await startFaultProxy(anvil.rpcUrl);
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('stopped mid-backfill: nothing half-written, the next leader resumes the wallet', async () => {
    // Traces of the wallet's transactions hang: its backfill stays in the fetch phase.
    proxy.setPolicy((_, body) => (BACKFILL_TRACES.test(body) ? 'timeout' : 'pass'));
    const chain: ChainConfig = { ...workloadChain(proxy.url, w), mode: 'wallets' };
    const s = await serveStore(chain, alwaysReady(31337), 0);
    cleanups.push(async () => {
      await s.app.close();
      await s.t.drop();
    });
    const wallet = w.wallets[7] as string;
    let indexers = await startIndexers({
      db: s.db,
      chains: [chain],
      log,
      pollIntervalMs: 50,
      rpcOptions: fastRpc,
    });
    const first = await get(s, `/v1/evm/activity/${wallet}?chain_ids=31337&limit=7`);
    expect((first.body.warnings as { code: string }[])[0]?.code).toBe(
      'WALLET_BACKFILL_IN_PROGRESS',
    );
    await waitFor(
      () => indexers.status()[0]?.wallets?.running.some((r) => r.phase === 'fetch') === true,
    );
    await indexers.stop();
    // Stopped in its fetch phase, or failed there first when a held trace call gave up (2 s)
    // before the stop reached it on a busy machine: either way not ready, and retried.
    expect(['backfilling', 'failed']).toContain((await trackedRow(s, wallet))?.status);
    const { rows } = await s.db.query<{ n: string }>(
      'select count(*) as n from activity where wallet = $1',
      [wallet],
    );
    expect(Number(rows[0]?.n)).toBe(0);
    proxy.setPolicy(() => 'pass');
    indexers = await startIndexers({
      db: s.db,
      chains: [chain],
      log,
      pollIntervalMs: 50,
      rpcOptions: fastRpc,
    });
    cleanups.push(() => indexers.stop());
    await waitFor(async () => (await trackedRow(s, wallet))?.status === 'ready');
    expect(await walletAnswers(s, wallet)).toEqual(reference.get(wallet));
  }, 180_000);

  it('kill -9 of a sluice-chain process in the fetch phase: nothing half-written, a new process finishes the wallet', async () => {
    const wallet = w.wallets[17] as string;
    // Traces of the wallet's transactions hang: the first process is killed in the fetch phase.
    // Armed once the process is ready: its start-up probe of trace_block is not the backfill.
    let armed = false;
    let tracing = false;
    proxy.setPolicy((_, body) => {
      if (!armed || !BACKFILL_TRACES.test(body)) return 'pass';
      tracing = true;
      return 'timeout';
    });
    const t = await createTestDatabase('postgres');
    const dir = mkdtempSync(join(tmpdir(), 'sluice-wallets-kill-'));
    const processes: CliProcess[] = [];
    let watching = true;
    let watcher: Promise<void> | undefined;
    cleanups.push(async () => {
      watching = false;
      await watcher?.catch(() => {});
      for (const p of processes) await p.stop();
      await t.drop();
      rmSync(dir, { recursive: true, force: true });
    });
    const chainsFile = join(dir, 'chains.json');
    writeFileSync(
      chainsFile,
      JSON.stringify({
        chains: [
          {
            chain_id: 31337,
            name: 'devnet',
            rpc_url: proxy.url,
            mode: 'wallets',
            start_block: 0,
            finality_depth: 5,
            stablecoins: [w.erc20[1]],
            wrapped_native: w.weth,
            multicall3: w.multicall3,
          },
        ],
      }),
    );
    const key = 'wallets-kill-test-key-0123456789';
    const env = {
      DATABASE_URL: t.url as string,
      CHAINS_FILE: chainsFile,
      API_KEYS: key,
      HOST: '127.0.0.1',
      PORT: '0',
      CURSOR_SECRET: 'test-cursor-secret-0123456789abcdef',
      WALLET_BACKFILL_WAIT_MS: '0',
      RATE_LIMIT_MAX: '1000000',
      KEY_CACHE_TTL_MS: '0',
    };
    // One statement, one snapshot: the status and the wallet's rows as any reader sees them.
    const seen = async () => {
      const { rows } = await t.db.query<{ status: string | null; rows: string }>(
        `select (select status from tracked_wallets where wallet = $1) as status,
                (select count(*) from activity where wallet = $1)::text as rows`,
        [wallet],
      );
      return { status: rows[0]?.status ?? null, rows: Number(rows[0]?.rows) };
    };
    const ready = async (url: string) => {
      const res = await fetch(`${url}/health`).catch(() => undefined);
      const body = (await res?.json().catch(() => undefined)) as
        | { chains?: { ready?: boolean }[] }
        | undefined;
      return body?.chains?.[0]?.ready === true;
    };
    const first = await startCli(['serve'], env, 90_000);
    processes.push(first);
    await waitFor(() => ready(first.url), 90_000);
    const halfWritten: string[] = [];
    const statuses = new Set<string | null>();
    watcher = (async () => {
      while (watching) {
        const now = await seen();
        statuses.add(now.status);
        if (now.status !== 'ready' && now.rows > 0) halfWritten.push(JSON.stringify(now));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    const api = { url: first.url, key };
    armed = true;
    const partial = await get(api, `/v1/evm/activity/${wallet}?chain_ids=31337&limit=7`);
    expect((partial.body.warnings as { code: string }[])[0]?.code).toBe(
      'WALLET_BACKFILL_IN_PROGRESS',
    );
    await waitFor(() => tracing, 90_000);
    await new Promise((r) => setTimeout(r, 300));
    const exited = new Promise((r) => first.child.once('exit', r));
    first.child.kill('SIGKILL');
    await exited;
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(await seen()).toEqual({ status: 'backfilling', rows: 0 });

    proxy.setPolicy(() => 'pass');
    const second = await startCli(['serve'], env, 90_000);
    processes.push(second);
    await waitFor(() => ready(second.url), 90_000);
    await waitFor(async () => (await seen()).status === 'ready', 120_000);
    watching = false;
    await watcher;
    expect(halfWritten).toEqual([]);
    expect(statuses.has('backfilling')).toBe(true); // the watcher saw the window it guards
    // The CLI's chain comes from the registry, which gives ETH a logo the in-process reference
    // config (workloadChain) does not have, and the CLI runs the NFT metadata worker, which adds
    // `metadata` (the token URI) whenever it gets there first; everything else must match.
    const apart = (answers: unknown) =>
      JSON.parse(JSON.stringify(answers), (k, v) =>
        k === 'metadata' || (k === 'logo' && v === NATIVE_ETH_LOGO) ? undefined : v,
      );
    expect(apart(await walletAnswers({ url: second.url, key }, wallet))).toEqual(
      apart(reference.get(wallet)),
    );
  }, 300_000);

  it('a reorg below the handover during the backfill: the wallet is backfilled again on the new branch', async () => {
    const wallet = w.wallets[9] as `0x${string}`;
    const other = w.wallets[10] as `0x${string}`;
    proxy.setPolicy((_, body) => (BACKFILL_TRACES.test(body) ? 'timeout' : 'pass'));
    const chain: ChainConfig = {
      ...workloadChain(proxy.url, w),
      mode: 'wallets',
      finalityDepth: 64,
    };
    const s = await serveStore(chain, alwaysReady(31337), 0);
    cleanups.push(async () => {
      await s.app.close();
      await s.t.drop();
    });
    // The follower starts first: the fork below is above its first block.
    const indexers = await startIndexers({
      db: s.db,
      chains: [chain],
      log,
      pollIntervalMs: 50,
      rpcOptions: fastRpc,
    });
    cleanups.push(() => indexers.stop());
    await waitFor(() => indexers.status()[0]?.ready === true);
    const snapshot = await rpcCall<string>(anvil.rpcUrl, 'evm_snapshot');
    // Old branch: a payment to the wallet, a few blocks the follower indexes.
    await rpcCall(anvil.rpcUrl, 'eth_sendTransaction', [
      { from: other, to: wallet, value: '0x1111' },
    ]);
    await rpcCall(anvil.rpcUrl, 'anvil_mine', ['0x3']);
    const oldHead = BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber'));
    await waitFor(() => BigInt(indexers.status()[0]?.indexed_block ?? 0) >= oldHead);
    await get(s, `/v1/evm/activity/${wallet}?chain_ids=31337`);
    await waitFor(async () => (await trackedRow(s, wallet))?.handover_block !== null);
    const before = await trackedRow(s, wallet);
    // New branch from the snapshot: another payment, a longer chain.
    await rpcCall(anvil.rpcUrl, 'evm_revert', [snapshot]);
    await rpcCall(anvil.rpcUrl, 'eth_sendTransaction', [
      { from: other, to: wallet, value: '0x2222' },
    ]);
    await rpcCall(anvil.rpcUrl, 'anvil_mine', ['0x6']);
    await waitFor(
      async () => ((await trackedRow(s, wallet))?.generation ?? 0) > (before?.generation ?? 0),
    );
    proxy.setPolicy(() => 'pass');
    await waitFor(async () => (await trackedRow(s, wallet))?.status === 'ready', 120_000);
    const head = BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber'));
    await waitFor(() => BigInt(indexers.status()[0]?.indexed_block ?? 0) >= head);
    // Reference: full mode over the new branch.
    const fullChain = referenceChain();
    const again = await serveStore(fullChain, alwaysReady(31337));
    cleanups.push(async () => {
      await again.app.close();
      await again.t.drop();
    });
    await indexOnce({ db: again.db, chains: [fullChain], log, maxBatchSize: 2_000 });
    const got = await walletAnswers(s, wallet);
    expect(got).toEqual(await walletAnswers(again, wallet));
    const values = (got.activity ?? []).flatMap((p) =>
      (p as { activity: { value: string }[] }).activity.map((a) => a.value),
    );
    expect(values).toContain(String(0x2222));
    expect(values).not.toContain(String(0x1111));
    const gt = await checkGroundTruth(s.db, anvil.rpcUrl, 31337);
    expect(gt.mismatches).toEqual([]);
  }, 240_000);
});
