import { openDatabase } from '@sluice/db';
import { startTestCluster, type TestCluster } from '@sluice/db/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AnvilInstance, startAnvil } from '../src/devnet/index.js';
import { createKeyStore } from '../src/keys/key-store.js';
import { rpcCall as rpc } from './indexer/random-workload.js';
import { type CliProcess, startCli } from './support/cli-process.js';

// Answers never go backwards across replicas: a primary and a hot standby of this file's own, one indexer writing to
// the primary, two API processes reading from the standby (one hears of batches through Redis,
// the other through LISTEN on the primary). Clients alternate between the two APIs while
// blocks arrive: every answer is a balance the chain had, a client never sees one older than
// before, and the answers follow the chain while the standby is paused and after it stops.
vi.setConfig({ testTimeout: 120_000 });

const KEY = 'read-replicas-test-key-0123456789';
const FUNDER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'; // anvil account 0, unlocked
const WALLET = '0x00000000000000000000000000000000005a1c17';
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

interface ReadServerHealth {
  role: string;
  state: string;
  queries: number;
  lag_bytes: number | null;
}

/** Resolves once `check` returns true; throws naming `what` after `timeoutMs`. */
async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('API processes reading from a hot standby while the indexer writes to the primary', () => {
  let primary: TestCluster;
  let standby: TestCluster;
  let anvil: AnvilInstance;
  let admin: pg.Client;
  const running: CliProcess[] = [];
  let apis: CliProcess[] = [];
  /** Every native balance WALLET had, in order (one per payment block). */
  const history: bigint[] = [0n];
  const errors: string[] = [];
  /** Per client: the balances it was served, in order. */
  const seen: bigint[][] = [[], [], [], []];
  let polling = true;
  let poller: Promise<void> | undefined;

  const health = async (api: CliProcess) =>
    (await (await fetch(`${api.url}/health`)).json()) as {
      status: string;
      change_feed?: string;
      read_servers?: ReadServerHealth[];
    };
  const standbyOf = async (api: CliProcess) =>
    (await health(api)).read_servers?.find((s) => s.role === 'standby');

  /** One client's request: the native balance served, alternating between the two APIs. */
  async function served(client: number, turn: number): Promise<bigint | undefined> {
    const api = apis[(client + turn) % 2]!;
    const res = await fetch(`${api.url}/v1/evm/balances/${WALLET}?chain_ids=31337`, {
      headers: { 'x-sim-api-key': KEY },
    }).catch((error: unknown) => ({ status: 0, text: async () => String(error) }));
    if (res.status !== 200) {
      errors.push(
        `client ${client} via api ${(client + turn) % 2}: ${res.status} ${await res.text()}`,
      );
      return undefined;
    }
    const body = (await (res as Response).json()) as {
      balances: { address: string; amount: string }[];
    };
    return BigInt(body.balances.find((b) => b.address === 'native')?.amount ?? '0');
  }

  async function pay(amount: bigint): Promise<void> {
    await rpc(anvil.rpcUrl, 'eth_sendTransaction', [
      { from: FUNDER, to: WALLET, value: `0x${amount.toString(16)}` },
    ]);
    history.push(history.at(-1)! + amount);
  }

  /** Both clients see the latest balance (each through both APIs). */
  async function untilBothServeLatest(): Promise<void> {
    const want = history.at(-1)!;
    await waitFor(`both APIs to serve ${want}`, async () => {
      const answers = await Promise.all([0, 1, 2, 3].map((i) => served(i % 2, i >> 1)));
      return answers.every((a) => a === want);
    });
  }

  beforeAll(async () => {
    [primary, anvil] = await Promise.all([startTestCluster(), startAnvil()]);
    standby = await primary.startStandby();
    admin = new pg.Client({ connectionString: standby.url });
    await admin.connect();
    const indexer = await startCli(
      ['index'],
      { DATABASE_URL: primary.url, RPC_URL_31337: anvil.rpcUrl, REDIS_URL: redisUrl },
      60_000,
      false,
    );
    running.push(indexer);
    const common = {
      DATABASE_URL: primary.url,
      DATABASE_READ_URL: standby.url,
      RPC_URL_31337: anvil.rpcUrl,
      API_KEYS: KEY,
      HOST: '127.0.0.1',
      PORT: '0',
      KEY_CACHE_TTL_MS: '0',
      RATE_LIMIT_MAX: '1000000',
      DB_CONNECT_TIMEOUT_MS: '2000',
      // Default auto (on: standbys); set to compare without the fence.
      READ_FENCE: process.env.READ_REPLICAS_TEST_FENCE ?? 'auto',
    };
    apis = await Promise.all([
      startCli(['serve', '--no-index'], { ...common, REDIS_URL: redisUrl }, 90_000),
      startCli(['serve', '--no-index'], common, 90_000),
    ]);
    running.push(...apis);
    for (const api of apis) {
      await waitFor('readiness', async () => (await health(api)).status === 'ok', 60_000);
    }
    // Four clients polling throughout, each alternating between the APIs.
    poller = (async () => {
      for (let turn = 0; polling; turn++) {
        const answers = await Promise.all([0, 1, 2, 3].map((client) => served(client, turn)));
        answers.forEach((a, client) => {
          if (a !== undefined) seen[client]!.push(a);
        });
      }
    })();
  }, 180_000);

  afterAll(async () => {
    polling = false;
    await poller;
    await Promise.all(running.map((p) => p.stop()));
    await admin?.end().catch(() => {});
    await Promise.all([primary?.destroy(), anvil?.stop()]);
  });

  it('serves every batch from the standby, as the chain has it', async () => {
    const before = (await standbyOf(apis[0]!))?.queries ?? 0;
    for (const amount of [1_000n, 20_000n, 300_000n]) {
      await pay(amount);
      await untilBothServeLatest();
    }
    // Both transports deliver changes (Redis for the first API, LISTEN for the second): the
    // response cache serves hits only while its feed is connected.
    for (const api of apis) {
      const path = `${api.url}/v1/evm/activity/${WALLET}?chain_ids=31337`;
      const headers = { 'x-sim-api-key': KEY };
      await fetch(path, { headers });
      const h = await health(api);
      expect((await fetch(path, { headers })).headers.get('x-cache'), JSON.stringify(h)).toBe(
        'hit',
      );
    }
    expect((await standbyOf(apis[0]!))?.state).toBe('ok');
    expect((await standbyOf(apis[1]!))?.queries).toBeGreaterThan(0);
    expect((await standbyOf(apis[0]!))?.queries).toBeGreaterThan(before);
    // The block the APIs report as indexed has exactly the balance served.
    const block = await rpc<string>(anvil.rpcUrl, 'eth_blockNumber');
    expect(BigInt(await rpc<string>(anvil.rpcUrl, 'eth_getBalance', [WALLET, block]))).toBe(
      history.at(-1),
    );
  });

  it('keeps each client monotonic across both APIs while batches come quickly', async () => {
    // Each client alternates between the APIs, so an answer one API built from a batch the
    // other has not heard of yet would show as going backwards (without READ_FENCE).
    const from = seen.map((answers) => answers.length);
    const errorsBefore = errors.length;
    // The standby stops replaying for a third of the batches: reads must not fall behind what
    // a client was already shown while it lags, nor when it catches up.
    try {
      for (let i = 0; i < 25; i++) {
        if (i === 8) await admin.query('select pg_wal_replay_pause()');
        if (i === 16) await admin.query('select pg_wal_replay_resume()');
        await pay(BigInt(7_000_000 + i));
        await new Promise((resolve) => setTimeout(resolve, 20 + (i % 3) * 15));
      }
    } finally {
      await admin.query('select pg_wal_replay_resume()');
    }
    // Checked after the wait, so a client that went backwards is reported as such first.
    const caughtUp = await untilBothServeLatest().then(
      () => true,
      () => false,
    );
    expect(errors.slice(errorsBefore)).toEqual([]);
    const known = new Set(history);
    seen.forEach((all, client) => {
      const answers = all.slice(from[client]);
      // The clients saw the quick batches go by, not one settled value.
      expect(new Set(answers).size, `client ${client}`).toBeGreaterThan(2);
      for (const a of answers) expect(known.has(a)).toBe(true);
      // History only grows, so "never older" is "never smaller" for this wallet.
      for (let i = 1; i < answers.length; i++) {
        expect(
          answers[i]! >= answers[i - 1]!,
          `client ${client}, answer ${i}: ${answers[i]} < ${answers[i - 1]}`,
        ).toBe(true);
      }
    });
    expect(caughtUp, 'both APIs serve the latest balance').toBe(true);
  });

  it('answers from the primary while the standby does not replay, and new keys work at once', async () => {
    await admin.query('select pg_wal_replay_pause()');
    try {
      await pay(4_000_000n);
      await untilBothServeLatest();
      // A key created on the primary now: the paused standby cannot have it.
      const primaryDb = await openDatabase({ url: primary.url });
      const { key } = await createKeyStore(primaryDb).create({ name: 'fresh' });
      await primaryDb.close();
      for (const api of apis) {
        const res = await fetch(`${api.url}/v1/evm/balances/${WALLET}?chain_ids=31337`, {
          headers: { 'x-sim-api-key': key },
        });
        expect(res.status).toBe(200);
      }
      const lagging = await standbyOf(apis[1]!);
      expect(lagging?.state).toBe('lagging');
      expect(lagging?.lag_bytes).toBeGreaterThan(0);
    } finally {
      await admin.query('select pg_wal_replay_resume()');
    }
    await waitFor(
      'the standby to serve again',
      async () => (await standbyOf(apis[0]!))?.state === 'ok',
    );
  });

  it('falls back to the primary without errors when the standby stops', async () => {
    await admin.end();
    const failuresBefore = errors.length;
    await standby.stop('fast');
    await pay(50_000_000n);
    await untilBothServeLatest();
    expect(errors.slice(failuresBefore)).toEqual([]);
    for (const [i, api] of apis.entries()) {
      expect((await health(api)).status).toBe('ok');
      // A probe of the stopping standby may outlast the wait for replay on a loaded machine:
      // until it fails the standby shows as lagging (behind the last batch), and reads go on
      // from the primary; the next reads' probe finds it down.
      await waitFor(`api ${i} to report the stopped standby down`, async () => {
        await served(i, 0);
        return (await standbyOf(api))?.state === 'down';
      });
    }
    expect(errors.slice(failuresBefore)).toEqual([]);
    // Back: used again once it has caught up.
    await standby.start();
    await pay(600_000_000n);
    await untilBothServeLatest();
    await waitFor('the restarted standby', async () => (await standbyOf(apis[0]!))?.state === 'ok');
  });

  it('never served a balance the chain did not have, nor an older one to the same client', () => {
    expect(errors).toEqual([]);
    const known = new Set(history);
    for (const answers of seen) {
      expect(answers.length).toBeGreaterThan(20);
      for (const a of answers) expect(known.has(a)).toBe(true);
      // History only grows, so "never older" is "never smaller" for this wallet.
      for (let i = 1; i < answers.length; i++) {
        expect(
          answers[i]! >= answers[i - 1]!,
          `answer ${i}: ${answers[i]} < ${answers[i - 1]}`,
        ).toBe(true);
      }
    }
  });
});
