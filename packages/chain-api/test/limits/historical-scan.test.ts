import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore } from '../../src/keys/key-store.js';
import { pricesAt } from '../../src/pricing/price-queries.js';
import { startTestApi, type TestApi } from '../support/api-harness.js';
import { type HeavyStore, seedHeavyStore } from '../support/heavy-wallet.js';
import { loop, sampleRss } from '../support/load-probe.js';

/**
 * Balances at a past block with `exclude_unpriced=true&limit=1` on a wallet holding thousands of
 * never-priced tokens: the page is found with one aggregation of the wallet's history (not one
 * per two candidates), within time and memory bounds, while another key's reads keep working;
 * when the candidates are priceable but unpriced at the block, the scan stops at its budget
 * with a short page that resumes through `next_offset`.
 */
const SPAM = 3_000;
let api: TestApi;
let store: HeavyStore;
let otherKey: string;

beforeAll(async () => {
  let db: TestApi['serverDb'] | undefined;
  api = await startTestApi({
    pricing: { pricesAt: (items) => pricesAt(db!, items), tokenLinks: () => undefined },
    limits: { maxRowsScanned: 1_000 },
  });
  db = api.serverDb;
  store = await seedHeavyStore(api.t.db, { spamTokens: SPAM, days: 30 });
  otherKey = (await createKeyStore(api.t.db).create({ name: 'other' })).key;
}, 120_000);
afterAll(async () => {
  await api?.close();
});

type Body = {
  balances: { address: string }[];
  next_offset?: string;
  warnings?: { code: string }[];
};

const past = (offset?: string) =>
  `/v1/evm/balances/${store.spamWallet}?chain_ids=31337&block_number=2&exclude_unpriced=true&limit=1${offset ? `&offset=${encodeURIComponent(offset)}` : ''}`;

describe('past-block balances with exclude_unpriced on a spam wallet', () => {
  it('answers the one priced token in bounded time and memory; another key is unaffected', async () => {
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
    const res = await api.get(past());
    const elapsed = performance.now() - started;
    done = true;
    const light = await other;
    const peak = rss.stop();
    expect(res.status).toBe(200);
    const body = (await res.json()) as Body;
    expect(body.balances.map((b) => b.address)).toEqual([store.pricedToken]);
    // Before: ~1,500 passes, each re-aggregating the wallet's whole history (tens of seconds).
    expect(elapsed).toBeLessThan(5_000);
    expect(peak - rssBefore).toBeLessThan(300 * 1024 * 1024);
    expect(light.failures).toEqual({});
    expect(light.requests).toBeGreaterThan(0);
  });

  it('stops at the scan budget with a short page whose next_offset resumes the scan', async () => {
    // Every spam token gets a price point without a price: priceable, yet unpriced at the block.
    await api.t.db.query(
      `insert into price_history (chain_id, token, block_number, time, price_usd, quote, price_in_quote)
       select 31337, x.token, 1, b.timestamp, null, 'usd', 0
         from erc20_balances x join blocks b on b.chain_id = 31337 and b.number = 1
        where x.wallet = $1 and x.token <> $2`,
      [store.spamWallet, store.pricedToken],
    );
    let offset: string | undefined;
    const seen: string[] = [];
    let shortPages = 0;
    for (let page = 0; page < 10; page++) {
      const started = performance.now();
      const res = await api.get(past(offset));
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Body;
      seen.push(...body.balances.map((b) => b.address));
      if (body.balances.length === 0) {
        shortPages++;
        expect(body.warnings?.map((w) => w.code)).toContain('SCAN_LIMIT_REACHED');
        expect(body.next_offset).toBeTruthy();
      }
      offset = body.next_offset;
      if (!offset) break;
    }
    // 3,000 unpriced candidates at 1,000 per request: a few short pages, then the priced token.
    expect(shortPages).toBeGreaterThanOrEqual(2);
    expect(seen).toEqual([store.pricedToken]);
    expect(offset).toBeUndefined();
  });

  it('a cursor from another block is rejected, not scanned', async () => {
    const first = (await (await api.get(past())).json()) as Body;
    expect(first.next_offset).toBeTruthy();
    const res = await api.get(
      `/v1/evm/balances/${store.spamWallet}?chain_ids=31337&block_number=3&exclude_unpriced=true&limit=1&offset=${encodeURIComponent(first.next_offset!)}`,
    );
    expect(res.status).toBe(400);
  });
});
