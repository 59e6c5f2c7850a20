import { type Database, migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainConfig } from '../../chains/index.js';
import { rollbackPricing } from '../../reorg/rollback-pricing.js';
import { chainMigrations } from '../../store/index.js';
import { compactPriceHistory } from '../../store/pricing/compact-history.js';
import { pricingMigrations } from '../../store/pricing/pricing-migrations.js';
import { createHistoricalPriceCache } from '../historical-price-cache.js';
import { historicalPrices, pricesAt } from '../price-queries.js';
import { type PricingWorker, startPricing } from '../start-pricing.js';
import { newChainStepState, priceChainStep } from './price-chain-step.js';

const CHAIN = 424242;
const USDC = '0x00000000000000000000000000000000000000a1'; // 6 dec, token0 of its pairs
const WETH = '0x00000000000000000000000000000000000000b1';
const UNI = '0x00000000000000000000000000000000000000c1';
const SCAM = '0x00000000000000000000000000000000000000c2';
const LATE = '0x00000000000000000000000000000000000000c3'; // metadata not fetched yet
const P1 = '0x00000000000000000000000000000000000000f1'; // USDC/WETH
const P2 = '0x00000000000000000000000000000000000000f2'; // WETH/UNI
const P3 = '0x00000000000000000000000000000000000000f3'; // USDC/SCAM
const P4 = '0x00000000000000000000000000000000000000f4'; // USDC/LATE
const WBTC = '0x00000000000000000000000000000000000000c5'; // 8 dec
const P5 = '0x00000000000000000000000000000000000000f5'; // v3 WETH/WBTC
const E18 = 10n ** 18n;
const E6 = 10n ** 6n;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const min = (m: number) => new Date(T0 + m * 60_000);

const chain: ChainConfig = {
  chainId: CHAIN,
  name: 'pricing_test',
  tags: ['test'],
  nativeSymbol: 'ETH',
  nativeName: 'Ether',
  nativeDecimals: 18,
  startBlock: 0n,
  finalityDepth: 2,
  stablecoins: [USDC],
  wrappedNative: WETH,
  uniswapV2Factories: ['0x00000000000000000000000000000000000000ee'],
  uniswapV3Factories: [],
};

describe.each(['postgres', 'pglite'] as const)('pricing on %s', (kind) => {
  let t: TestDatabase;
  let db: Database;
  let worker: PricingWorker;

  async function setState(block: number, pool: string, r0: bigint, r1: bigint): Promise<void> {
    await db.query(
      `insert into pool_states (chain_id, pool, block_number, block_time, reserve0, reserve1)
       values ($1, $2, $3, $4, $5, $6)`,
      [CHAIN, pool, block, min(block * 10).toISOString(), r0.toString(), r1.toString()],
    );
  }

  async function checkpoint(block: number): Promise<void> {
    await db.query(
      `insert into checkpoints (chain_id, indexed_block, indexed_hash, indexed_time) values ($1, $2, '0x', $3)
       on conflict (chain_id) do update set indexed_block = excluded.indexed_block, indexed_time = excluded.indexed_time`,
      [CHAIN, block, min(block * 10).toISOString()],
    );
  }

  async function current(token: string) {
    const { rows } = await db.query<Record<string, unknown>>(
      `select price_usd, pool_size, low_liquidity, pool_address, pool_type, pool_tokens, route, quote,
              updated_block::int as updated_block, dirty
         from token_prices where chain_id = $1 and token = $2`,
      [CHAIN, token],
    );
    return rows[0];
  }

  beforeAll(async () => {
    t = await createTestDatabase(kind);
    db = t.db;
    await migrate(db, [...chainMigrations, ...pricingMigrations]);
    for (const [address, decimals, status] of [
      [USDC, 6, 'ok'],
      [WETH, 18, 'ok'],
      [UNI, 18, 'ok'],
      [SCAM, 18, 'ok'],
      [LATE, null, 'pending'],
      [WBTC, 8, 'ok'],
    ] as const) {
      await db.query(
        `insert into tokens (chain_id, address, standard, decimals, status, first_block) values ($1, $2, 'erc20', $3, $4, 1)`,
        [CHAIN, address, decimals, status],
      );
    }
    for (const [address, t0, t1] of [
      [P1, USDC, WETH],
      [P2, WETH, UNI],
      [P3, USDC, SCAM],
      [P4, USDC, LATE],
      [P5, WETH, WBTC],
    ] as const) {
      await db.query(
        `insert into pools (chain_id, address, dex, factory, token0, token1, created_block)
         values ($1, $2, $3, $4, $5, $6, 1)`,
        [
          CHAIN,
          address,
          address === P5 ? 'uniswap_v3' : 'uniswap_v2',
          chain.uniswapV2Factories[0],
          t0,
          t1,
        ],
      );
    }
    // v3 WETH (token0, 18) / WBTC (token1, 8): sqrtPriceX96 = 2^76 -> raw 2^-40 sats per wei;
    // 1 WETH = 2^-40 * 10^18 / 10^8 = 10^10 / 2^40 WBTC, so 1 WBTC = 2^40 / 10^10 = 109.9511627776 WETH
    // = 351,843.72088832 USD at 3,200. L = 10^15 -> virtual WETH = L * 2^20 = 1,048.576 WETH, but the pool holds 10 WETH:
    // depth 10 WETH -> pool 2 * 10 * 3,200 = 64,000 USD.
    await db.query(
      `insert into pool_states (chain_id, pool, block_number, block_time, sqrt_price_x96, tick, liquidity)
       values ($1, $2, 1, $3, $4, -277261, $5)`,
      [CHAIN, P5, min(10).toISOString(), (2n ** 76n).toString(), (10n ** 15n).toString()],
    );
    for (const [token, amount] of [
      [WETH, 10n * E18],
      [WBTC, 5n * 10n ** 8n],
    ] as const) {
      await db.query(
        `insert into erc20_balances (wallet, chain_id, token, amount, updated_block) values ($1, $2, $3, $4, 1)`,
        [P5, CHAIN, token, amount.toString()],
      );
    }
    // block 1 (T0 + 10 min):
    //  P1 300,000 USDC : 100 WETH -> WETH 3,000 USD, pool 600,000 USD
    //  P2 20 WETH : 10,000 UNI -> UNI 0.002 WETH = 6 USD, pool min(2*20*3000, 600,000) = 120,000
    //  P3 0.001 USDC (1,000 raw) : 1 wei SCAM -> 1e15 USD but a 0.002 USD pool: unpriced
    //  P4 50,000 USDC : 1,000 LATE, decimals unknown yet
    await setState(1, P1, 300_000n * E6, 100n * E18);
    await setState(1, P2, 20n * E18, 10_000n * E18);
    await setState(1, P3, 1_000n, 1n);
    await setState(1, P4, 50_000n * E6, 1_000n * E18);
    // block 2 (T0 + 20 min): P1 320,000 USDC : 100 WETH -> WETH 3,200; UNI follows: 0.002 * 3200 = 6.4,
    //  pool min(2*20*3200 = 128,000, 640,000) = 128,000
    await setState(2, P1, 320_000n * E6, 100n * E18);
    // block 3 (T0 + 30 min): P2 20 WETH : 8,000 UNI -> 0.0025 WETH * 3200 = 8 USD
    await setState(3, P2, 20n * E18, 8_000n * E18);
    await checkpoint(3);
    worker = await startPricing({
      db,
      chains: [chain],
      log: pino({ level: 'silent' }),
      thresholds: { minLiquidityUsd: 1_000, lowLiquidityUsd: 10_000 },
      intervalMs: 60_000,
      pendingGraceMs: 60_000,
    });
  });

  afterAll(async () => {
    await worker?.stop();
    await t?.drop();
  });

  describe('pricing worker on stored pool states', () => {
    it('holds its cursor while a pool token still waits for metadata', async () => {
      await worker.runOnce();
      const { rows } = await db.query<{ last_block: string }>(
        'select last_block from pricing_cursors where chain_id = $1',
        [CHAIN],
      );
      expect(rows[0]?.last_block).toBe('-1');
      expect(await current(WETH)).toBeUndefined();
      // the indexer fetches LATE's metadata: 18 decimals -> 50,000 / 1,000 = 50 USD, pool 100,000
      await db.query(`update tokens set decimals = 18, status = 'ok' where address = $1`, [LATE]);
      await worker.runOnce();
      expect(await current(LATE)).toMatchObject({ price_usd: 50, pool_size: 100_000 });
    });

    it('computes current prices, pools and routes', async () => {
      expect(await current(WETH)).toMatchObject({
        price_usd: 3200,
        pool_size: 640_000,
        low_liquidity: false,
        pool_address: P1,
        pool_type: 'uniswap_v2',
        pool_tokens: [USDC, WETH],
        route: [P1],
        updated_block: 2,
      });
      expect(await current('native')).toMatchObject({ price_usd: 3200, pool_size: 640_000 });
      expect(await current(UNI)).toMatchObject({
        price_usd: 8,
        pool_size: 128_000,
        quote: WETH,
        route: [P2, P1],
        pool_tokens: [WETH, UNI],
        updated_block: 3,
      });
      // USDC: 1 USD by configuration; its deepest pool against WETH holds 100 WETH * 3200 * 2
      expect(await current(USDC)).toMatchObject({ price_usd: 1, pool_size: 640_000 });
      expect(await current(WBTC)).toMatchObject({
        price_usd: 351843.72088832,
        pool_size: 64_000,
        pool_type: 'uniswap_v3',
        pool_tokens: [WETH, WBTC],
        route: [P5, P1],
      });
      expect(await current(SCAM)).toMatchObject({
        price_usd: null,
        pool_size: 0.002,
        low_liquidity: true,
      });
    });

    it('answers prices at past times, re-valuing WETH-routed tokens with WETH then', async () => {
      const times = [min(5), min(10), min(15), min(20), min(25), min(30), min(999)];
      expect(
        await pricesAt(
          db,
          times.map((time) => ({ chainId: CHAIN, token: UNI, time })),
        ),
      ).toEqual([
        null, // before the first point
        6, // 0.002 WETH * 3000
        6,
        6.4, // WETH moved to 3200 at block 2; UNI's own pool did not
        6.4,
        8,
        8,
      ]);
      expect(
        await pricesAt(db, [
          { chainId: CHAIN, token: 'native', time: min(15) },
          { chainId: CHAIN, token: USDC, time: min(1) },
          { chainId: CHAIN, token: SCAM, time: min(15) },
          { chainId: CHAIN, token: '0x00000000000000000000000000000000000000ff', time: min(15) },
          { chainId: 999_999, token: UNI, time: min(15) },
        ]),
      ).toEqual([3000, 1, null, null, null]);
      expect(await pricesAt(db, [])).toEqual([]);
      // historical_prices: offsets without a point are left out, order kept
      expect(await historicalPrices(db, CHAIN, UNI, [1, 24], min(75))).toEqual([
        { offset_hours: 1, price_usd: 6 },
      ]);
    });

    it('the historical price cache answers per minute and memoizes settled minutes', async () => {
      let statements = 0;
      const counting = {
        query: ((sql: string, params?: unknown[]) => {
          statements++;
          return db.query(sql, params);
        }) as typeof db.query,
        exec: (sql: string) => db.exec(sql),
      };
      const cache = createHistoricalPriceCache(counting, { now: () => min(1000).getTime() });
      const qs = [min(15), min(25.5), min(31)].map((time) => ({
        chainId: CHAIN,
        token: UNI,
        time,
      }));
      expect(await cache.pricesAt(qs)).toEqual([6, 6.4, 8]);
      expect(statements).toBe(1);
      expect(await cache.pricesAt(qs)).toEqual([6, 6.4, 8]);
      expect(statements).toBe(1);
      expect(cache.size).toBe(3);
      // recent minutes (inside settledAfterMs) are always asked again
      const fresh = createHistoricalPriceCache(counting, { now: () => min(32).getTime() });
      await fresh.pricesAt(qs);
      await fresh.pricesAt(qs);
      expect(statements).toBe(3);
      const tiny = createHistoricalPriceCache(counting, {
        now: () => min(1000).getTime(),
        maxEntries: 2,
      });
      await tiny.pricesAt(qs);
      expect(tiny.size).toBe(2);
      // concurrent misses for the same settled minutes share one statement
      const shared = createHistoricalPriceCache(counting, { now: () => min(1000).getTime() });
      const before = statements;
      const answers = await Promise.all(Array.from({ length: 20 }, () => shared.pricesAt(qs)));
      expect(answers).toEqual(Array.from({ length: 20 }, () => [6, 6.4, 8]));
      expect(statements - before).toBe(1);
      // a failed shared query rejects every waiter and is not remembered
      const failing = {
        query: (() => Promise.reject(new Error('db down'))) as typeof db.query,
        exec: (sql: string) => db.exec(sql),
      };
      const broken = createHistoricalPriceCache(failing, { now: () => min(1000).getTime() });
      const results = await Promise.allSettled([broken.pricesAt(qs), broken.pricesAt(qs)]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
      expect(broken.size).toBe(0);
    });

    it('a reorg rollback removes later points and re-prices from the new branch', async () => {
      await db.transaction(async (tx) => {
        await tx.query('delete from pool_states where chain_id = $1 and block_number > 2', [CHAIN]);
        await rollbackPricing(tx, CHAIN, 2n);
      });
      expect(await current(UNI)).toMatchObject({ dirty: true });
      // new block 3: P2 20 WETH : 5,000 UNI -> 0.004 WETH * 3200 = 12.8 USD
      await setState(3, P2, 20n * E18, 5_000n * E18);
      await worker.runOnce();
      expect(await current(UNI)).toMatchObject({ price_usd: 12.8, dirty: false, updated_block: 3 });
      expect(await pricesAt(db, [{ chainId: CHAIN, token: UNI, time: min(31) }])).toEqual([12.8]);

      // a rollback below a block with no replacement: UNI falls back to its block-2 state (6.4)
      await db.transaction(async (tx) => {
        await tx.query('delete from pool_states where chain_id = $1 and block_number > 2', [CHAIN]);
        await rollbackPricing(tx, CHAIN, 2n);
      });
      await checkpoint(2);
      await worker.runOnce();
      expect(await current(UNI)).toMatchObject({ price_usd: 6.4, dirty: false });
      expect(await pricesAt(db, [{ chainId: CHAIN, token: UNI, time: min(31) }])).toEqual([6.4]);
    });

    it('drains a pool below the minimum: the token becomes unpriced, history says so', async () => {
      // block 4: P2 drained to 0.1 WETH : 50 UNI -> pool 2 * 0.1 * 3200 = 640 USD < 1,000
      await setState(4, P2, E18 / 10n, 50n * E18);
      await checkpoint(4);
      await worker.runOnce();
      expect(await current(UNI)).toMatchObject({
        price_usd: null,
        pool_size: 640,
        low_liquidity: true,
      });
      expect(await pricesAt(db, [{ chainId: CHAIN, token: UNI, time: min(41) }])).toEqual([null]);
    });
  });

  describe('token metadata that never arrives', () => {
    it('does not stall the chain past the grace period; the token is priced once it arrives', async () => {
      const NEVER = '0x00000000000000000000000000000000000000c6';
      const P6 = '0x00000000000000000000000000000000000000f6';
      await db.query(
        `insert into tokens (chain_id, address, standard, status, first_block) values ($1, $2, 'erc20', 'pending', 5)`,
        [CHAIN, NEVER],
      );
      await db.query(
        `insert into pools (chain_id, address, dex, factory, token0, token1, created_block)
         values ($1, $2, 'uniswap_v2', $3, $4, $5, 5)`,
        [CHAIN, P6, chain.uniswapV2Factories[0], USDC, NEVER],
      );
      // block 5: P1 340,000 USDC : 100 WETH -> WETH 3,400; P6 20,000 USDC : 10 NEVER -> 2,000 USD
      await setState(5, P1, 340_000n * E6, 100n * E18);
      await setState(5, P6, 20_000n * E6, 10n * E18);
      await checkpoint(5);
      await worker.stop(); // drive the steps by hand, with a fake clock
      const state = newChainStepState(chain);
      let clock = 0;
      const opts = {
        thresholds: { minLiquidityUsd: 1_000, lowLiquidityUsd: 10_000 },
        maxBlocks: 100n,
        pendingGraceMs: 1_000,
        compaction: { olderThanMs: 3_600_000, bucketMinutes: 5 },
        now: () => clock,
      };
      const held = await priceChainStep(db, state, opts);
      expect(held.toBlock).toBe(4n); // held back within the grace period
      clock = 5_000;
      const r = await priceChainStep(db, state, opts);
      expect(r.toBlock).toBe(5n);
      expect(await current(WETH)).toMatchObject({ price_usd: 3400 });
      expect(await current(NEVER)).toBeUndefined();
      expect(state.retry.has(NEVER)).toBe(true);
      await db.query(`update tokens set decimals = 18, status = 'ok' where address = $1`, [NEVER]);
      await priceChainStep(db, state, opts);
      expect(await current(NEVER)).toMatchObject({ price_usd: 2000, pool_size: 40_000 });

      // a quote token whose metadata is pending holds the chain whatever the grace period
      await db.query(`update tokens set decimals = null, status = 'pending' where address = $1`, [
        USDC,
      ]);
      await setState(6, P6, 30_000n * E6, 10n * E18);
      await checkpoint(6);
      clock = 1_000_000;
      expect((await priceChainStep(db, state, opts)).toBlock).toBe(5n);
      await db.query(`update tokens set decimals = 6, status = 'ok' where address = $1`, [USDC]);
      expect((await priceChainStep(db, state, opts)).toBlock).toBe(6n);
      expect(await current(NEVER)).toMatchObject({ price_usd: 3000 });
    });
  });

  describe('price history compaction', () => {
    it('keeps the last point of each 5-minute bucket older than an hour, and only final blocks', async () => {
      const token = '0x00000000000000000000000000000000000000d1';
      // 30 points, one a minute from T0 + 100 min, blocks 1000..1029
      for (let i = 0; i < 30; i++) {
        await db.query(
          `insert into price_history (chain_id, token, block_number, time, price_usd, pool_size, quote, price_in_quote)
           values ($1, $2, $3, $4, $5, 1e6, $6, $5)`,
          [CHAIN, token, 1000 + i, min(100 + i).toISOString(), i, USDC],
        );
      }
      const count = async () =>
        Number(
          (
            await db.query<{ n: string }>(
              'select count(*) as n from price_history where chain_id = $1 and token = $2',
              [CHAIN, token],
            )
          ).rows[0]?.n,
        );
      // now = T0 + 190 min: points before T0 + 130 min are older than an hour (all 30);
      // finalized block 1019 -> only minutes 100..119 may go: buckets [100,105) .. [115,120) keep 1 each
      const deleted = await compactPriceHistory(db, CHAIN, min(190), 1019n);
      expect(deleted).toBe(16);
      expect(await count()).toBe(14);
      // the answer at a bucket's end is unchanged: at T0+104:30 the price is still the point of minute 104
      expect(
        await pricesAt(db, [{ chainId: CHAIN, token, time: new Date(T0 + 104.5 * 60_000) }]),
      ).toEqual([4]);
      // once everything is final, the rest is compacted: minutes 120..129 -> 2 buckets
      expect(await compactPriceHistory(db, CHAIN, min(190), 2000n)).toBe(8);
      expect(await count()).toBe(6);
      expect(await compactPriceHistory(db, CHAIN, min(190), 2000n)).toBe(0);
    });
  });
});
