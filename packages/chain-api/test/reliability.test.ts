import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { migrate } from '@sluice/db';
import {
  createTestDatabase,
  startTcpProxy,
  startTestCluster,
  type TcpProxy,
  type TestCluster,
  type TestDatabase,
} from '@sluice/db/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AnvilInstance, startAnvil } from '../src/devnet/index.js';
import { storeMigrations } from '../src/store/migrations.js';
import { type CliProcess, startCli } from './support/cli-process.js';

// `sluice-chain serve` under dependency faults: a PostgreSQL of this file's own restarted under
// it, frozen behind a proxy, an unreachable Redis at start, a second process on a PGlite folder.
vi.setConfig({ testTimeout: 240_000 });

const run = promisify(execFile);
const cliPath = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli.ts');
const KEY = 'reliability-test-key-0123456789';
const FUNDER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'; // anvil account 0, unlocked
const WALLET = '0x00000000000000000000000000000000005a1ce0'; // funded by transactions only
const keyed = { headers: { 'x-sim-api-key': KEY } };
const running: CliProcess[] = [];
const tmp = mkdtempSync(join(tmpdir(), 'sluice-chain-reliability-'));

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  rmSync(tmp, { recursive: true, force: true });
});

async function attempt(url: string, init: RequestInit = {}) {
  const start = Date.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(60_000) });
    return { status: res.status, body: await res.text(), ms: Date.now() - start };
  } catch (error) {
    return { status: 0, body: String(error), ms: Date.now() - start };
  }
}

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: T }).result;
}

/** A plain ether transfer to WALLET, mined at once (anvil automines). */
async function pay(rpcUrl: string, valueHex: string): Promise<void> {
  await rpc(rpcUrl, 'eth_sendTransaction', [{ from: FUNDER, to: WALLET, value: valueHex }]);
}

describe('serve (API + indexer) on a PostgreSQL that restarts and freezes', () => {
  let cluster: TestCluster;
  let proxy: TcpProxy;
  let anvil: AnvilInstance;
  let serve: CliProcess;

  beforeAll(async () => {
    [cluster, anvil] = await Promise.all([startTestCluster(), startAnvil()]);
    await pay(anvil.rpcUrl, '0xde0b6b3a7640000');
    proxy = await startTcpProxy(cluster.port);
    serve = await startCli(
      ['serve'],
      {
        DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port}/postgres`,
        RPC_URL_31337: anvil.rpcUrl,
        API_KEYS: KEY,
        HOST: '127.0.0.1',
        PORT: '0',
        KEY_CACHE_TTL_MS: '0',
        DB_STATEMENT_TIMEOUT_MS: '2000',
        DB_CONNECT_TIMEOUT_MS: '2000',
      },
      120_000,
    );
    running.push(serve);
    // Ready once the backfill is done.
    const end = Date.now() + 120_000;
    while (JSON.parse((await attempt(`${serve.url}/health`)).body || '{}').status !== 'ok') {
      if (Date.now() > end) throw new Error(`serve never became ready:\n${serve.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }, 240_000);

  afterAll(async () => {
    await serve?.stop();
    await proxy?.close();
    await Promise.all([cluster?.destroy(), anvil?.stop()]);
  });

  const balancesUrl = () => `${serve.url}/v1/evm/balances/${WALLET}?chain_ids=31337`;

  /** The served native balance once it matches the chain at the indexed block. */
  async function nativeMatchesChain(): Promise<boolean> {
    const res = await attempt(balancesUrl(), keyed);
    if (res.status !== 200) return false;
    const health = JSON.parse((await attempt(`${serve.url}/health`)).body) as {
      chains: { indexed_block: number }[];
    };
    const block = health.chains[0]?.indexed_block ?? 0;
    const body = JSON.parse(res.body) as { balances: { address: string; amount: string }[] };
    const served = body.balances.find((b) => b.address === 'native')?.amount ?? '0';
    const chain = BigInt(
      await rpc<string>(anvil.rpcUrl, 'eth_getBalance', [WALLET, `0x${block.toString(16)}`]),
    );
    return BigInt(served) === chain;
  }

  it('keeps running across a PostgreSQL restart: 503 with a JSON body while down, correct after', async () => {
    expect(await nativeMatchesChain()).toBe(true);
    await cluster.stop('fast');
    try {
      const [balances, health] = await Promise.all([
        attempt(balancesUrl(), keyed),
        attempt(`${serve.url}/health`),
      ]);
      expect(balances.status).toBe(503);
      expect(JSON.parse(balances.body)).toEqual({
        message: expect.stringMatching(/Database unavailable/),
      });
      expect(health.status).toBe(503);
      expect(JSON.parse(health.body)).toMatchObject({ status: 'error', database: 'unreachable' });
      // Unknown routes do not need the database.
      expect((await attempt(`${serve.url}/nope`)).status).toBe(404);
    } finally {
      await cluster.start();
    }
    // Move the chain on while recovering: the indexer must pick it up too.
    await pay(anvil.rpcUrl, '0x1234567890abcdef');
    await expect.poll(nativeMatchesChain, { timeout: 60_000, interval: 500 }).toBe(true);
    const health = JSON.parse((await attempt(`${serve.url}/health`)).body) as { status: string };
    expect(health.status).toBe('ok');
    expect(serve.child.exitCode).toBeNull();
    expect(serve.output()).not.toMatch(/Unhandled 'error' event|uncaught/i);
  });

  it('answers 503 within the timeouts while the database is frozen, then recovers', async () => {
    proxy.freeze();
    let during: Awaited<ReturnType<typeof attempt>>[];
    try {
      during = await Promise.all([
        attempt(`${serve.url}/health`),
        attempt(balancesUrl(), keyed),
        attempt(`${serve.url}/v1/evm/activity/${WALLET}?chain_ids=31337`, keyed),
      ]);
    } finally {
      proxy.resume();
    }
    expect(during.map((d) => d.status)).toEqual([503, 503, 503]);
    // 2 s statement + 1 s read margin, 2 s connect: well under the 60 s the client would wait.
    for (const d of during) expect(d.ms).toBeLessThan(30_000);
    proxy.cut();
    await expect.poll(nativeMatchesChain, { timeout: 60_000, interval: 500 }).toBe(true);
    expect(serve.child.exitCode).toBeNull();
  });
});

describe('dependencies that are missing at start', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('postgres');
    await migrate(t.db, storeMigrations);
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('listens with an unreachable Redis and limits per process (fail open)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const address = closed.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const server = await startCli(['serve', '--no-index'], {
      DATABASE_URL: t.url!,
      REDIS_URL: `redis://127.0.0.1:${port}`,
      RPC_URL_31337: 'http://127.0.0.1:9',
      API_KEYS: KEY,
      RATE_LIMIT_MAX: '3',
      RATE_LIMIT_WINDOW_MS: '60000',
      HOST: '127.0.0.1',
      PORT: '0',
    });
    running.push(server);
    const url = `${server.url}/v1/evm/supported-chains`;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await attempt(url, keyed)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(server.output().match(/redis unavailable/g)?.length).toBe(1);
    await server.stop();
  });

  it('keys create refuses a PGlite folder a running server holds, and says what to do', async () => {
    const dataDir = mkdtempSync(join(tmp, 'pglite-'));
    const server = await startCli(
      ['serve', '--no-index'],
      { DATA_DIR: dataDir, RPC_URL_31337: 'http://127.0.0.1:9', HOST: '127.0.0.1', PORT: '0' },
      120_000,
    );
    running.push(server);
    const result = await run(process.execPath, ['--import', 'tsx', cliPath, 'keys', 'create'], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
      timeout: 120_000,
    }).then(
      (r) => ({ code: 0, stdout: r.stdout }),
      (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${dataDir} is in use by process ${server.child.pid}`);
    expect(result.stdout).toContain('API_KEYS');
    expect(result.stdout).toContain('DATABASE_URL');
    expect(result.stdout).not.toMatch(/sluice_[A-Za-z0-9_-]{32}/);
    await server.stop();
    const after = await run(process.execPath, ['--import', 'tsx', cliPath, 'keys', 'create'], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
      timeout: 120_000,
    });
    expect(after.stdout).toMatch(/sluice_[A-Za-z0-9_-]{32}/);
  });
});
