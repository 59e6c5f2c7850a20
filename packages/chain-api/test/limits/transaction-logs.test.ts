import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore } from '../../src/keys/key-store.js';
import { startTestApi, type TestApi } from '../support/api-harness.js';
import { type HeavyStore, seedHeavyStore } from '../support/heavy-wallet.js';
import { loop, sampleRss } from '../support/load-probe.js';

/**
 * A transaction that emitted 75,000 logs, listed by `transactions` for its sender: the page
 * shows the first TX_MAX_LOGS logs of it with a `LOGS_TRUNCATED` warning, in bounded time and
 * memory (grouping the logs used to copy each transaction's list once per log).
 */
const LOGS = 75_000;
let api: TestApi;
let store: HeavyStore;
let otherKey: string;

beforeAll(async () => {
  api = await startTestApi({ limits: { maxLogsPerTransaction: 500 } });
  store = await seedHeavyStore(api.t.db, { spamTokens: 1, days: 5, logs: LOGS });
  otherKey = (await createKeyStore(api.t.db).create({ name: 'other' })).key;
}, 180_000);
afterAll(async () => {
  await api?.close();
});

type Body = {
  transactions: { hash: string; logs: { log_index: number }[] }[];
  warnings?: { code: string; message: string }[];
};

describe('transactions with a 75k-log transaction', () => {
  it('caps the logs shown per transaction, with a warning, in bounded time and memory', async () => {
    const rssBefore = process.memoryUsage().rss;
    const rss = sampleRss();
    let done = false;
    const other = loop(
      api.url,
      otherKey,
      [`/v1/evm/balances/${store.lightWallet}?chain_ids=31337`],
      4,
      () => done,
    );
    const started = performance.now();
    const res = await api.get(`/v1/evm/transactions/${store.spamWallet}?chain_ids=31337`);
    const elapsed = performance.now() - started;
    done = true;
    const light = await other;
    const peak = rss.stop();
    expect(light.failures).toEqual({});
    expect(res.status).toBe(200);
    const body = (await res.json()) as Body;
    const tx = body.transactions.find((t) => t.hash === store.logsTx);
    expect(tx?.logs).toHaveLength(500);
    expect(tx?.logs.map((l) => l.log_index).slice(0, 3)).toEqual([0, 1, 2]);
    expect(tx?.logs.at(-1)?.log_index).toBe(499);
    const warning = body.warnings?.find((w) => w.code === 'LOGS_TRUNCATED');
    expect(warning?.message).toContain(store.logsTx);
    expect(elapsed).toBeLessThan(5_000);
    expect(peak - rssBefore).toBeLessThan(200 * 1024 * 1024);
  });

  it('with decode=true the page is bounded the same way', async () => {
    const res = await api.get(
      `/v1/evm/transactions/${store.spamWallet}?chain_ids=31337&decode=true`,
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as Body;
    expect(body.transactions.find((t) => t.hash === store.logsTx)?.logs).toHaveLength(500);
  });
});
