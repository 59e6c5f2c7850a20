import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedReadDb } from '../../src/api/limits/bounded-db.js';
import { pricingLookups } from '../../src/cli/pricing-lookups.js';
import { createKeyStore } from '../../src/keys/key-store.js';
import { startTestApi, type TestApi, testChains } from '../support/api-harness.js';
import { runFairness } from '../support/fairness-run.js';
import { type HeavyStore, seedHeavyStore } from '../support/heavy-wallet.js';

/**
 * Fairness under load (the CI version of `npm run bench:fairness`, with bounds for a loaded
 * machine): one key runs the heaviest legal requests on 40 connections while another reads
 * balances on 10. The second key gets no error and stays fast; the first key's requests are
 * answered or cut at the deadline (503), never failed otherwise.
 */
let api: TestApi;
let store: HeavyStore;
let heavyKey: string;
let lightKey: string;

beforeAll(async () => {
  const chains = testChains();
  api = await startTestApi({
    chains,
    pricingFrom: (db) => pricingLookups(boundedReadDb(db), chains),
    limits: { timeoutMs: 3_000, keyDbConcurrency: 2 },
  });
  store = await seedHeavyStore(api.t.db, { spamTokens: 3_000, days: 366, logs: 20_000 });
  const keys = createKeyStore(api.t.db);
  heavyKey = (await keys.create({ name: 'heavy' })).key;
  lightKey = (await keys.create({ name: 'light' })).key;
}, 180_000);
afterAll(async () => {
  await api?.close();
});

describe('per-key fairness', () => {
  it('a key reading balances is unaffected by another key running heavy requests', async () => {
    const { heavy, light } = await runFairness({
      url: api.url,
      heavyKey,
      lightKey,
      store,
      durationMs: 5_000,
    });
    console.log(JSON.stringify({ heavy, light }));
    expect(heavy.requests).toBeGreaterThan(0);
    for (const status of Object.keys(heavy.statuses)) expect(['200', '503']).toContain(status);
    expect(light.requests).toBeGreaterThan(20);
    expect(light.failures).toEqual({});
    expect(light.p99).toBeLessThan(2_000);
  }, 60_000);
});
