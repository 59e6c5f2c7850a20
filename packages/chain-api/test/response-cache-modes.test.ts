import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreChangeHandlers } from '../src/api/response-cache/store-changes.js';
import { changeKey } from '../src/changes/index.js';
import { startTestApi, type TestApi } from './support/api-harness.js';
import { addr, insertNativeBalances, insertPrices } from './support/seed-store.js';
import { commitSyntheticBlock, startSyntheticChain } from './support/synthetic-batch.js';

const a = addr('modes-wallet-a');
const b = addr('modes-wallet-b');
const balances = (wallet: string) => `/v1/evm/balances/${wallet}?chain_ids=1`;

async function seed(api: TestApi) {
  await insertNativeBalances(
    api.t.db,
    [a, b].map((wallet) => ({ chainId: 1, wallet, amount: '5' })),
  );
  await insertPrices(api.t.db, [
    { chainId: 1, token: 'native', priceUsd: 3_000, poolSize: 1e6, lowLiquidity: false },
  ]);
}

async function outcome(api: TestApi, path: string): Promise<string | null> {
  return (await api.get(path)).headers.get('x-cache');
}

async function until(check: () => Promise<boolean>) {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition never held');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// The replicas deployment delivers notifications through another transport (Redis, a primary
// connection): the cache takes whatever payloads it is handed.
describe('response cache on a pluggable change transport', () => {
  let api: TestApi;
  let handlers: StoreChangeHandlers | undefined;
  let closed = false;

  beforeAll(async () => {
    api = await startTestApi({
      responseCache: { maxBytes: 8 << 20, maxAgeMs: 60_000 },
      subscribeStoreChanges: async (h) => {
        handlers = h;
        return {
          close: async () => {
            closed = true;
          },
        };
      },
    });
    await seed(api);
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    expect(closed).toBe(true);
  });

  it('drops what a delivered payload names, bypasses while delivery is down', async () => {
    const schema = (
      await api.serverDb.query<{ schema: string }>('select current_schema() as schema')
    ).rows[0]!.schema;
    for (const w of [a, b]) {
      await api.get(balances(w));
      expect(await outcome(api, balances(w))).toBe('hit');
    }
    const payload = (body: string) => `{"v":1,"s":${JSON.stringify(schema)},"lsn":null,${body}}`;
    handlers!.onPayload(payload(`"c":[{"id":1,"w":"${changeKey(a)}"}]`));
    expect(await outcome(api, balances(a))).toBe('miss');
    expect(await outcome(api, balances(b))).toBe('hit');
    // Another store's change, then a price change of a token B shows: re-priced, not dropped.
    handlers!.onPayload(`{"v":1,"s":"other_store","lsn":null,"c":[{"id":1,"all":1}]}`);
    expect(await outcome(api, balances(b))).toBe('hit');
    handlers!.onPayload(payload(`"c":[{"id":1,"p":"${changeKey('native')}"}]`));
    expect(await outcome(api, balances(b))).toBe('repriced');
    expect(await outcome(api, balances(b))).toBe('hit');

    handlers!.onConnectionChange(false);
    expect(await outcome(api, balances(b))).toBe('bypass');
    handlers!.onConnectionChange(true);
    // Changes may have been missed meanwhile: nothing kept from before.
    expect(await outcome(api, balances(b))).toBe('miss');
    expect(await outcome(api, balances(b))).toBe('hit');
  });
});

// The design before scoped invalidation, kept for the benchmark's comparison.
describe('response cache with global invalidation', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi({
      responseCache: { maxBytes: 8 << 20, maxAgeMs: 60_000, invalidation: 'global' },
    });
    await seed(api);
  }, 60_000);

  afterAll(async () => {
    await api?.close();
  });

  it('drops every answer on any change', async () => {
    const tip = await startSyntheticChain(api.t.db, 1, 5n);
    for (const w of [a, b]) await until(async () => (await outcome(api, balances(w))) === 'hit');
    await commitSyntheticBlock(
      api.t.db,
      1,
      tip,
      [{ from: addr('x'), to: a, token: null, value: 1n }],
      {
        nativeBalances: new Map([[a, 6n]]),
      },
    );
    await until(async () => (await outcome(api, balances(b))) === 'miss');
    await until(async () => (await outcome(api, balances(b))) === 'hit');
    await api.t.db.query(`update token_prices set price_usd = 3100 where token = 'native'`);
    await until(async () => (await outcome(api, balances(b))) === 'miss');
  });
});
