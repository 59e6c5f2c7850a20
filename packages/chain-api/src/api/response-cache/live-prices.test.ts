import { describe, expect, it } from 'vitest';
import {
  type ChainStoreChange,
  changeKey,
  parseStoreChange,
} from '../../store/changes/store-change.js';
import type { ReadDb } from '../queries/prepared-query.js';
import { LivePrices } from './live-prices.js';

const usdc = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const weth = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';

/** A store whose price reads wait until the test releases them, answering the price then. */
function gatedStore() {
  const price = new Map<string, number>([
    [usdc, 1],
    [weth, 3_000],
  ]);
  const pending: (() => void)[] = [];
  let reads = 0;
  const db = {
    async query(_sql: string, params?: unknown[]) {
      reads++;
      const tokens = (params?.[1] ?? []) as string[];
      // A snapshot taken when the read starts; the answer arrives when the test releases it.
      const rows = tokens
        .filter((t) => price.has(t))
        .map((token) => ({
          token,
          price_usd: price.get(token)!,
          pool_size: 1e6,
          low_liquidity: false,
          pool_type: null,
          pool_address: null,
          pool_tokens: null,
        }));
      await new Promise<void>((resolve) => pending.push(resolve));
      return { rows, rowCount: rows.length };
    },
    async exec() {},
  } as unknown as ReadDb;
  return {
    db,
    price,
    reads: () => reads,
    release: () => {
      for (const resolve of pending.splice(0)) resolve();
    },
  };
}

const priceChange = (tokens: string[]): ChainStoreChange =>
  parseStoreChange(
    `{"v":1,"s":"x","lsn":null,"c":[{"id":1,"p":"${tokens.map(changeKey).join('')}"}]}`,
  ).chains[0]!;

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('LivePrices', () => {
  it('loads on first use, in one read per chain for everything asked meanwhile', async () => {
    const store = gatedStore();
    const prices = new LivePrices(store.db);
    const both = Promise.all([
      prices.ensure(new Map([[1, [usdc]]])),
      prices.ensure(new Map([[1, [weth, 'native']]])),
    ]);
    await settle();
    store.release();
    await settle();
    store.release();
    await both;
    expect(prices.lookup(1, usdc)?.price_usd).toBe(1);
    expect(prices.lookup(1, weth)?.price_usd).toBe(3_000);
    // No price row: null, not an error.
    expect(prices.lookup(1, 'native')).toBeNull();
    expect(store.reads()).toBeLessThanOrEqual(2);
    expect(() => prices.lookup(1, '0xunknown')).toThrow('not loaded');
  });

  it('never keeps a price read before a change announced while the read ran', async () => {
    const store = gatedStore();
    const prices = new LivePrices(store.db);
    const tokens = new Map([[1, [usdc]]]);
    const loading = prices.ensure(tokens);
    await settle();
    // The price moves and is announced while the first read is still out.
    store.price.set(usdc, 0.99);
    prices.apply(priceChange([usdc]));
    store.release(); // the first read answers the old price: discarded
    await settle();
    expect(prices.loaded(tokens)).toBe(false);
    store.release(); // the re-read
    await loading;
    expect(prices.lookup(1, usdc)?.price_usd).toBe(0.99);
  });

  it('tells which rendered answers a change outdates, and reloads changed prices', async () => {
    const store = gatedStore();
    const prices = new LivePrices(store.db);
    const both = new Map([[1, [usdc, weth]]]);
    const load = prices.ensure(both);
    await settle();
    store.release();
    await load;
    const tick = prices.tick;
    expect(prices.changedSince(new Map([[1, [usdc]]]), tick)).toBe(false);
    store.price.set(weth, 3_100);
    prices.apply(priceChange([weth]));
    expect(prices.changedSince(new Map([[1, [usdc]]]), tick)).toBe(false);
    expect(prices.changedSince(both, tick)).toBe(true);
    // Already being reloaded; a render waits for it.
    expect(prices.loaded(both)).toBe(false);
    const again = prices.ensure(both);
    await settle();
    store.release();
    await again;
    expect(prices.lookup(1, weth)?.price_usd).toBe(3_100);
    // Every price of the chain, or changes possibly missed: everything re-renders.
    const later = prices.tick;
    prices.apply({ ...priceChange([]), allPrices: true });
    expect(prices.changedSince(new Map([[1, [usdc]]]), later)).toBe(true);
    const afterAll = prices.tick;
    prices.reset();
    expect(prices.changedSince(new Map([[1, [usdc]]]), afterAll)).toBe(true);
    expect(prices.loaded(new Map([[1, [usdc]]]))).toBe(false);
  });
});
