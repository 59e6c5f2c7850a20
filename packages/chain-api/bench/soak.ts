/**
 * Soak: `sluice-chain serve` (API + indexer) for several minutes on a devnet with a trickle of
 * transactions, while faults cycle: PostgreSQL restart (fast and immediate), frozen database
 * (a paused TCP proxy), RPC faults (30 % of calls), Redis down, kill -9 of serve and restart.
 * A reader checks every balances answer against the chain (eth_getBalance / balanceOf at the
 * indexed block). At the end the store is compared with a clean reference index of the same
 * chain: rows lost must be 0.
 *
 *   npm run soak -w @sluice/chain-api -- [--minutes 5] [--hold 12]
 *
 * Everything is its own: a PostgreSQL cluster (initdb + pg_ctl), Redis, anvil, ports.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate, openDatabase } from '@sluice/db';
import { startTcpProxy, startTestCluster } from '@sluice/db/testing';
import pino from 'pino';
import { loadChainConfigs } from '../src/chains/index.js';
import { getFreePort, startDevnet, startTrickle } from '../src/devnet/index.js';
import { indexOnce } from '../src/ingest/index.js';
import { storeMigrations } from '../src/store/migrations.js';
import { checkGroundTruth, storeDigest } from '../test/indexer/ground-truth.js';
import { seededFaults, startFaultProxy } from '../test/support/fault-proxy.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1] ?? fallback) : fallback;
};
const minutes = arg('minutes', 5);
const holdMs = arg('hold', 12) * 1000;
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const KEY = 'soak-key-0123456789abcdef';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const say = (line: string) =>
  console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}`);

async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result as T;
}

// Whatever was started, stopped on the way out (also on Ctrl-C or a failure).
const teardown: (() => unknown)[] = [];
let tornDown = false;
async function tearDown() {
  if (tornDown) return;
  tornDown = true;
  for (const step of teardown.reverse()) {
    try {
      await step();
    } catch {}
  }
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void tearDown().finally(() => process.exit(130));
  });
}

async function main() {
  say(`starting: ${minutes} min of faults, each held ${holdMs / 1000} s`);
  const cluster = await startTestCluster();
  teardown.push(() => cluster.destroy());
  const dbProxy = await startTcpProxy(cluster.port);
  teardown.push(() => dbProxy.close());
  const devnet = await startDevnet({ trickle: false });
  teardown.push(() => devnet.stop());
  const trickle = startTrickle(devnet.rpcUrl, devnet.manifest, { intervalMs: 1_000, seed: 7 });
  teardown.push(() => trickle.stop());
  const rpcProxy = await startFaultProxy(devnet.rpcUrl);
  teardown.push(() => rpcProxy.close());
  const redisPort = await getFreePort();
  let redis: ChildProcess | undefined;
  const startRedis = async () => {
    redis = spawn(
      'redis-server',
      ['--port', String(redisPort), '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    await sleep(500);
  };
  await startRedis();
  teardown.push(() => redis?.kill('SIGKILL'));
  const apiPort = await getFreePort();
  const base = `http://127.0.0.1:${apiPort}`;

  // serve, restartable; an exit we did not cause is a crash.
  let serve: ChildProcess | undefined;
  let expectingExit = false;
  let crashes = 0;
  let serveLog = '';
  const startServe = () => {
    serve = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
      cwd: packageDir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        DATABASE_URL: `postgres://postgres@127.0.0.1:${dbProxy.port}/postgres`,
        RPC_URL_31337: rpcProxy.url,
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        API_KEYS: KEY,
        HOST: '127.0.0.1',
        PORT: String(apiPort),
        LOG_LEVEL: 'warn',
        RATE_LIMIT_MAX: '10000000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const child = serve;
    const keep = (chunk: Buffer) => {
      serveLog = (serveLog + String(chunk)).slice(-20_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.once('exit', (code, signal) => {
      if (expectingExit) return;
      crashes++;
      say(`serve exited on its own (${code ?? signal}). Last output:\n${serveLog.slice(-2000)}`);
      serveLog = '';
      if (crashes > 5) {
        say('serve keeps exiting: giving up');
        process.kill(process.pid, 'SIGTERM');
        return;
      }
      setTimeout(startServe, 2_000);
    });
  };

  const health = async (): Promise<{ status: string; indexed: number | null } | undefined> => {
    try {
      const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(30_000) });
      const body = (await res.json()) as {
        status: string;
        chains: { indexed_block: number | null }[];
      };
      return { status: body.status, indexed: body.chains[0]?.indexed_block ?? null };
    } catch {
      return undefined;
    }
  };
  const waitHealthy = async (timeoutMs: number) => {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      if ((await health())?.status === 'ok') return true;
      await sleep(500);
    }
    return false;
  };

  teardown.push(() => {
    expectingExit = true;
    serve?.kill('SIGKILL');
  });
  startServe();
  if (!(await waitHealthy(300_000))) throw new Error(`serve never became ready:\n${serveLog}`);
  say('serve ready');

  // The reader: balances answers against the chain at the indexed block.
  const wallets = Object.values(devnet.manifest.wallets);
  const tokens = Object.values(devnet.manifest.tokens).map((t) => t.address.toLowerCase());
  const tally = { checks: 0, balances: 0, mismatches: 0, s503: 0, down: 0, other: 0, raced: 0 };
  const mismatchNotes: string[] = [];
  let reading = true;
  const reader = (async () => {
    for (let i = 0; reading; i++) {
      const wallet = wallets[i % wallets.length]!;
      const before = await health();
      let res: Response;
      try {
        res = await fetch(`${base}/v1/evm/balances/${wallet}?chain_ids=31337`, {
          headers: { 'x-sim-api-key': KEY },
          signal: AbortSignal.timeout(30_000),
        });
      } catch {
        tally.down++;
        await sleep(200);
        continue;
      }
      const text = await res.text();
      if (res.status === 503) tally.s503++;
      else if (res.status !== 200) {
        tally.other++;
        mismatchNotes.push(`HTTP ${res.status}: ${text.slice(0, 200)}`);
      }
      const after = await health();
      if (res.status !== 200) {
        await sleep(200);
        continue;
      }
      if (before?.indexed == null || before.indexed !== after?.indexed) {
        tally.raced++; // the index moved during the request: no single block to check against
        continue;
      }
      const block = `0x${before.indexed.toString(16)}`;
      const body = JSON.parse(text) as { balances: { address: string; amount: string }[] };
      const listed = new Map(body.balances.map((b) => [b.address.toLowerCase(), BigInt(b.amount)]));
      tally.checks++;
      try {
        const expected = new Map<string, bigint>();
        expected.set(
          'native',
          BigInt(await rpc<string>(devnet.rpcUrl, 'eth_getBalance', [wallet, block])),
        );
        for (const token of tokens) {
          const data = `0x70a08231${wallet.slice(2).toLowerCase().padStart(64, '0')}`;
          expected.set(
            token,
            BigInt(await rpc<string>(devnet.rpcUrl, 'eth_call', [{ to: token, data }, block])),
          );
        }
        for (const [asset, amount] of expected) {
          tally.balances++;
          const served = listed.get(asset) ?? 0n;
          if (served !== amount) {
            tally.mismatches++;
            mismatchNotes.push(
              `${wallet} ${asset} @${before.indexed}: served ${served}, chain ${amount}`,
            );
          }
        }
      } catch (error) {
        tally.checks--;
        say(`reader: chain lookup failed (${String(error)})`);
      }
    }
  })();

  // The fault cycle.
  type Fault = { name: string; apply(): Promise<void>; heal(): Promise<void> };
  let immediate = false;
  const faults: Fault[] = [
    {
      name: 'postgres restart',
      async apply() {
        immediate = !immediate;
        await cluster.stop(immediate ? 'immediate' : 'fast');
      },
      heal: () => cluster.start(),
    },
    {
      name: 'frozen database',
      apply: async () => dbProxy.freeze(),
      heal: async () => dbProxy.resume(),
    },
    {
      name: 'rpc faults (30 %)',
      apply: async () => rpcProxy.setPolicy(seededFaults(Date.now(), 0.3)),
      heal: async () => rpcProxy.setPolicy(() => 'pass'),
    },
    {
      name: 'redis down',
      async apply() {
        redis?.kill('SIGKILL');
      },
      heal: startRedis,
    },
    {
      name: 'kill -9 serve',
      async apply() {
        expectingExit = true;
        const child = serve;
        child?.kill('SIGKILL');
        if (child && child.exitCode === null) await new Promise((r) => child.once('exit', r));
        expectingExit = false;
      },
      async heal() {
        startServe();
      },
    },
  ];
  const survived: Record<string, number> = {};
  const notRecovered: string[] = [];
  const end = Date.now() + minutes * 60_000;
  for (let i = 0; Date.now() < end; i++) {
    const fault = faults[i % faults.length]!;
    say(`fault ${i + 1}: ${fault.name}`);
    await fault.apply();
    await sleep(holdMs);
    await fault.heal();
    if (await waitHealthy(180_000)) {
      survived[fault.name] = (survived[fault.name] ?? 0) + 1;
    } else {
      notRecovered.push(fault.name);
      say(`NOT recovered within 180 s after ${fault.name}`);
    }
    await sleep(3_000);
  }

  // Settle: stop the trickle, let the index reach the head, stop reading.
  await trickle.stop();
  const head = Number(BigInt(await rpc<string>(devnet.rpcUrl, 'eth_blockNumber', [])));
  const settleEnd = Date.now() + 180_000;
  while (((await health())?.indexed ?? -1) < head && Date.now() < settleEnd) await sleep(500);
  reading = false;
  await reader;
  const finalHealth = await health();

  // Rows lost: the soaked store against a clean index of the same chain.
  const direct = `postgres://postgres@127.0.0.1:${cluster.port}/postgres`;
  const soaked = await openDatabase({ url: direct, statementTimeoutMs: 0 });
  const reference = await openDatabase({
    url: direct,
    schema: 'soak_reference',
    statementTimeoutMs: 0,
  });
  await migrate(reference, storeMigrations);
  const [chain] = await loadChainConfigs({ RPC_URL_31337: devnet.rpcUrl });
  await indexOnce({ db: reference, chains: [chain!], log: pino({ level: 'warn' }) });
  const [got, want] = [await storeDigest(soaked, 31337), await storeDigest(reference, 31337)];
  // Key columns of the digest's tables, to name the rows that differ.
  const tableKeys: Record<string, string> = {
    activity: 'wallet, block_number, tx_index, log_index, sub_index',
    erc20_balances: 'wallet, token',
    native_balances: 'wallet',
    nft_holdings: 'wallet, contract, token_id',
    tokens: 'address, standard, status, first_block',
    blocks: 'number',
    transactions: 'block_number, tx_index',
    logs: 'block_number, log_index',
  };
  let rowsLost = 0;
  const differing: string[] = [];
  for (const [table, digest] of Object.entries(want)) {
    const wantRows = Number(digest.split(':')[0]);
    const gotRows = Number((got[table] ?? '0:').split(':')[0]);
    rowsLost += Math.max(0, wantRows - gotRows);
    if (got[table] !== digest) differing.push(`${table} (${gotRows} vs ${wantRows} rows)`);
    if (gotRows < wantRows) {
      const keys = tableKeys[table] ?? '*';
      const sql = `select (${keys})::text as k from ${table} where chain_id = $1`;
      const have = new Set((await soaked.query<{ k: string }>(sql, [31337])).rows.map((r) => r.k));
      const { rows } = await reference.query<{ k: string }>(sql, [31337]);
      const missing = rows.filter((r) => !have.has(r.k)).map((r) => r.k);
      say(`${table}: missing ${missing.length}, e.g. ${missing.slice(0, 5).join('; ')}`);
    }
  }
  const truth = await checkGroundTruth(soaked, devnet.rpcUrl, 31337);

  await Promise.all([soaked.close(), reference.close()]);
  await tearDown();

  const total = Object.values(survived).reduce((a, b) => a + b, 0);
  console.log('\n=== soak result ===');
  console.log(
    `duration: ${minutes} min of faults, each held ${holdMs / 1000} s; head block ${head}, indexed ${finalHealth?.indexed}`,
  );
  console.log(
    `faults survived: ${total} (${Object.entries(survived)
      .map(([k, v]) => `${k} ×${v}`)
      .join(', ')})`,
  );
  console.log(
    `faults not recovered: ${notRecovered.length}${notRecovered.length ? ` (${notRecovered.join(', ')})` : ''}`,
  );
  console.log(`unexpected serve exits (crashes): ${crashes}`);
  console.log(`trickle transactions: ${trickle.count()} (failed ${trickle.failures()})`);
  console.log(
    `reader: ${tally.checks} answers checked against the chain (${tally.balances} balances), ${tally.mismatches} mismatches; ` +
      `${tally.s503} × 503, ${tally.down} × no connection (serve killed), ${tally.other} × other status, ${tally.raced} skipped (index moved mid-request)`,
  );
  for (const note of mismatchNotes.slice(0, 20)) console.log(`  ${note}`);
  console.log(
    `store vs clean reference index: rows lost ${rowsLost}; tables differing: ${differing.length ? differing.join(', ') : 'none'}`,
  );
  console.log(
    `ground truth (balanceOf/ownerOf/eth_getBalance of every stored holding): ${truth.mismatches.length} mismatches of ${truth.checked}`,
  );
  const ok =
    rowsLost === 0 &&
    tally.mismatches === 0 &&
    tally.other === 0 &&
    crashes === 0 &&
    notRecovered.length === 0 &&
    truth.mismatches.length === 0;
  console.log(ok ? 'PASS' : 'FAIL');
  process.exit(ok ? 0 : 1);
}

main().catch(async (error: unknown) => {
  console.error(error);
  await tearDown();
  process.exit(1);
});
