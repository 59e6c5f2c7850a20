import { type Database, migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import pino from 'pino';
import { type Address, createPublicClient, http, type PublicClient, parseAbi } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routerSwap as routerSwapAs } from '../../test/support/devnet-swap.js';
import { type Devnet, startDevnet } from '../devnet/index.js';
import { indexOnce } from '../ingest/index.js';
import { chainMigrations } from '../store/index.js';
import { pricingMigrations } from '../store/pricing/pricing-migrations.js';
import { historicalPrices, pricesAt } from './price-queries.js';
import { type PricingWorker, startPricing } from './start-pricing.js';
import { SPAM_POOL_SIZE_USD } from './thresholds.js';

/**
 * End to end on the devnet: anvil with the demo scenario (real Uniswap v2/v3 contracts), the real
 * indexer into PostgreSQL, the pricing worker. Expected values are recomputed here in plain
 * floating point from on-chain reads (getReserves, slot0, liquidity, balanceOf), independently of
 * src/pricing/math.
 */
const log = pino({ level: 'silent' });
const pairAbi = parseAbi(['function getReserves() view returns (uint112, uint112, uint32)']);
const v3Abi = parseAbi([
  'function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16, uint16, uint16, uint8, bool)',
  'function liquidity() view returns (uint128)',
]);
const erc20Abi = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function approve(address, uint256) returns (bool)',
]);

let devnet: Devnet;
let t: TestDatabase;
let db: Database;
let pricing: PricingWorker;
let pub: PublicClient;

const chainId = 31337;
const toks = () => devnet.manifest.tokens;
const pools = () => devnet.manifest.pools;

/** |actual / expected - 1| < 1e-9 (both computed from the same on-chain integers). */
function expectClose(actual: unknown, expected: number): void {
  expect(typeof actual).toBe('number');
  expect(Math.abs((actual as number) / expected - 1)).toBeLessThan(1e-9);
}

async function row(token: string) {
  const { rows } = await db.query<{
    price_usd: number | null;
    pool_size: number | null;
    low_liquidity: boolean;
    pool_address: string | null;
    pool_type: string | null;
    pool_tokens: string[] | null;
    route: string[];
  }>(
    `select price_usd, pool_size, low_liquidity, pool_address, pool_type, pool_tokens, route
       from token_prices where chain_id = $1 and token = $2`,
    [chainId, token],
  );
  return rows[0];
}

/** Index to the node's head, then price until the pricing cursor reaches the indexed block. */
async function sync(): Promise<void> {
  await indexOnce({ db, chains: [devnet.chain], log });
  for (let i = 0; i < 50; i++) {
    await pricing.runOnce();
    const { rows } = await db.query<{ ok: boolean }>(
      `select c.indexed_block = p.last_block as ok from checkpoints c
         join pricing_cursors p on p.chain_id = c.chain_id where c.chain_id = $1`,
      [chainId],
    );
    if (rows[0]?.ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('pricing did not catch up with the indexer');
}

/** Whole-unit price of `token` in the pair's other token, from reserves (float). */
async function v2Quote(
  pool: { address: Address; token0: string },
  token: string,
  d0: number,
  d1: number,
  blockNumber?: bigint,
) {
  const [r0, r1] = await pub.readContract({
    address: pool.address,
    abi: pairAbi,
    functionName: 'getReserves',
    blockNumber,
  });
  const x0 = Number(r0) / 10 ** d0;
  const x1 = Number(r1) / 10 ** d1;
  return token === pool.token0 ? { price: x1 / x0, counter: x1 } : { price: x0 / x1, counter: x0 };
}

async function wethUsd(blockNumber?: bigint) {
  const p = pools().usdcWeth;
  const d = (a: string) => (a === toks().usdc.address ? 6 : 18);
  return v2Quote(p, toks().weth.address, d(p.token0), d(p.token1), blockNumber);
}

async function slcUsd(blockNumber?: bigint) {
  const weth = await wethUsd(blockNumber);
  const q = await v2Quote(pools().slcWeth, toks().slc.address, 18, 18, blockNumber);
  return {
    price: q.price * weth.price,
    size: Math.min(2 * q.counter * weth.price, 2 * weth.counter),
  };
}

const routerSwap = (from: Address, to: Address, amountIn: bigint) =>
  routerSwapAs(devnet, pub, from, to, amountIn);

/** Last block whose timestamp is at or before `time` (unix seconds). */
async function blockAt(time: number): Promise<bigint> {
  let lo = 0n;
  let hi = await pub.getBlockNumber();
  while (lo < hi) {
    const mid = (lo + hi + 1n) / 2n;
    const b = await pub.getBlock({ blockNumber: mid });
    if (Number(b.timestamp) <= time) lo = mid;
    else hi = mid - 1n;
  }
  return lo;
}

beforeAll(async () => {
  devnet = await startDevnet({ trickle: false });
  pub = createPublicClient({ chain: foundry, transport: http(devnet.rpcUrl) }) as PublicClient;
  t = await createTestDatabase('postgres');
  db = t.db;
  await migrate(db, [...chainMigrations, ...pricingMigrations]);
  pricing = await startPricing({ db, chains: [devnet.chain], log, intervalMs: 3_600_000 });
  await sync();
}, 240_000);

afterAll(async () => {
  await pricing?.stop();
  await t?.drop();
  await devnet?.stop();
});

describe('pricing on the devnet scenario', () => {
  it('anchors: USDC is 1 USD, WETH and native follow the USDC/WETH pair', async () => {
    expect(await row(toks().usdc.address)).toMatchObject({ price_usd: 1 });
    const w = await wethUsd();
    const weth = await row(toks().weth.address);
    expectClose(weth?.price_usd, w.price);
    expectClose(weth?.pool_size, 2 * w.counter);
    expect(weth).toMatchObject({
      pool_address: pools().usdcWeth.address,
      pool_type: 'uniswap_v2',
      low_liquidity: false,
    });
    expect(await row('native')).toEqual(weth);
    expect(w.price).toBeGreaterThan(2000); // the scenario's ETH is ~3,000 USD
  });

  it('a token routed through WETH: price and pool size of the weaker hop', async () => {
    const s = await slcUsd();
    const slc = await row(toks().slc.address);
    expectClose(slc?.price_usd, s.price);
    expectClose(slc?.pool_size, s.size);
    expect(slc?.route).toEqual([pools().slcWeth.address, pools().usdcWeth.address]);
  });

  it('WBTC (8 decimals) takes the deep v3 pool over the shallow v2 pair', async () => {
    const p = pools().wbtcWethV3;
    const [sqrtPriceX96] = await pub.readContract({
      address: p.address,
      abi: v3Abi,
      functionName: 'slot0',
    });
    const liquidity = await pub.readContract({
      address: p.address,
      abi: v3Abi,
      functionName: 'liquidity',
    });
    const wethHeld = await pub.readContract({
      address: toks().weth.address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [p.address],
    });
    const wbtcIs0 = p.token0 === toks().wbtc.address;
    const d0 = wbtcIs0 ? 8 : 18;
    const d1 = wbtcIs0 ? 18 : 8;
    const sqrt = Number(sqrtPriceX96) / 2 ** 96;
    const price0in1 = sqrt * sqrt * 10 ** (d0 - d1);
    const wbtcInWeth = wbtcIs0 ? price0in1 : 1 / price0in1;
    const w = await wethUsd();
    // WETH depth: virtual reserve L*sqrt (token1) or L/sqrt (token0), capped by WETH held
    const virtualWeth = (wbtcIs0 ? Number(liquidity) * sqrt : Number(liquidity) / sqrt) / 1e18;
    const depth = Math.min(virtualWeth, Number(wethHeld) / 1e18);
    const wbtc = await row(toks().wbtc.address);
    expect(wbtc).toMatchObject({ pool_address: p.address, pool_type: 'uniswap_v3' });
    expectClose(wbtc?.price_usd, wbtcInWeth * w.price);
    expectClose(wbtc?.pool_size, Math.min(2 * depth * w.price, 2 * w.counter));
    expect(wbtcInWeth).toBeGreaterThan(19); // 20 ETH on v3, not the v2 pair's 18
  });

  it('an illiquid token is priced but flagged low_liquidity; it passes the spam filter', async () => {
    const ilq = await row(toks().ilq.address);
    expect(ilq?.price_usd).toBeGreaterThan(0);
    expect(ilq?.low_liquidity).toBe(true);
    expect(ilq?.pool_size).toBeGreaterThan(SPAM_POOL_SIZE_USD);
    expect(ilq?.pool_size).toBeLessThan(10_000);
  });

  it('the 1-wei manipulation pool: SCAM unpriced, so 1,000,000 SCAM are worth nothing', async () => {
    const scam = await row(toks().scam.address);
    expect(scam).toMatchObject({
      price_usd: null,
      low_liquidity: true,
      pool_address: pools().scamUsdc.address,
    });
    expect(scam?.pool_size).toBeLessThan(SPAM_POOL_SIZE_USD); // dropped by exclude_spam_tokens
    // on-chain, the pair's spot price is absurd (5 USDC for 1 wei = 5e18 USD per SCAM)
    const q = await v2Quote(
      pools().scamUsdc,
      toks().scam.address,
      pools().scamUsdc.token0 === toks().usdc.address ? 6 : 18,
      pools().scamUsdc.token0 === toks().usdc.address ? 18 : 6,
    );
    expect(q.price).toBeGreaterThan(1e15);
    // judy's balance joined to the price, as the balances endpoint does: no value_usd at all
    const { rows } = await db.query<{ amount: string; value_usd: number | null }>(
      `select b.amount::text as amount, (b.amount / 1e18) * p.price_usd as value_usd
         from erc20_balances b join token_prices p on p.chain_id = b.chain_id and p.token = b.token
        where b.chain_id = $1 and b.wallet = $2 and b.token = $3`,
      [chainId, devnet.manifest.wallets.judy, toks().scam.address],
    );
    expect(rows[0]?.amount).toBe((1_000_000n * 10n ** 18n).toString());
    expect(rows[0]?.value_usd).toBeNull();
  });

  it('a token without any pool has no price row (spam and unpriced filters drop it)', async () => {
    expect(await row(toks().spam.address)).toBeUndefined();
    expect(await pricesAt(db, [{ chainId, token: toks().spam.address, time: new Date() }])).toEqual(
      [null],
    );
  });

  it('historical_prices follow the scenario timeline (SLC 2 USD, dumped 26 h before the end)', async () => {
    const end = devnet.manifest.endTime;
    const offsets = [1, 24, 168];
    const got = await historicalPrices(
      db,
      chainId,
      toks().slc.address,
      offsets,
      new Date(end * 1000),
    );
    const expected = await Promise.all(
      offsets.map(async (h) => (await slcUsd(await blockAt(end - h * 3600))).price),
    );
    expect(got.map((g) => g.offset_hours)).toEqual(offsets);
    for (const [i, g] of got.entries()) expectClose(g.price_usd, expected[i]!);
    expect(got[2]!.price_usd).toBeGreaterThan(1.9); // before the dump
    expect(got[1]!.price_usd).toBeLessThan(1.5); // after it
    // before the chain existed: omitted, not zero
    expect(
      await historicalPrices(db, chainId, toks().slc.address, [24 * 30], new Date(end * 1000)),
    ).toEqual([]);
  });

  it('after a scripted swap two hours later, price and pool_size follow; 1 h ago is the pre-swap price', async () => {
    const before = { weth: await wethUsd(), slc: await slcUsd() };
    await pub.request({ method: 'evm_increaseTime' as never, params: [7200] as never });
    await pub.request({ method: 'evm_mine' as never, params: [] as never });
    // 500k USDC into the ~1.5M USDC side: ETH up by more than 30%
    const receipt = await routerSwap(
      toks().usdc.address,
      toks().weth.address,
      500_000n * 10n ** 6n,
    );
    const swapTime = Number((await pub.getBlock({ blockNumber: receipt.blockNumber })).timestamp);
    await sync();

    const after = { weth: await wethUsd(), slc: await slcUsd() };
    expect(after.weth.price).toBeGreaterThan(before.weth.price * 1.3);
    const weth = await row(toks().weth.address);
    expectClose(weth?.price_usd, after.weth.price);
    expectClose(weth?.pool_size, 2 * after.weth.counter);
    // SLC's own pool did not move; its USD price follows WETH (one UPDATE re-prices it)
    const slc = await row(toks().slc.address);
    expectClose(slc?.price_usd, after.slc.price);
    expectClose(slc?.pool_size, after.slc.size);

    const now = new Date(swapTime * 1000);
    const [w1] = await historicalPrices(db, chainId, toks().weth.address, [1], now);
    expectClose(w1?.price_usd, before.weth.price);
    const [s1] = await historicalPrices(db, chainId, toks().slc.address, [1], now);
    expectClose(s1?.price_usd, before.slc.price);
    // and at the swap's own time the new prices
    const [wNow, sNow] = await pricesAt(db, [
      { chainId, token: 'native', time: now },
      { chainId, token: toks().slc.address, time: now },
    ]);
    expectClose(wNow, after.weth.price);
    expectClose(sNow, after.slc.price);
  });

  it('a reorg replaces the price points of the abandoned branch', async () => {
    const snapshot = await pub.request({ method: 'evm_snapshot' as never, params: [] as never });
    // branch A: buy ETH with 400k USDC
    await routerSwap(toks().usdc.address, toks().weth.address, 400_000n * 10n ** 6n);
    await sync();
    const a = await wethUsd();
    expectClose((await row(toks().weth.address))?.price_usd, a.price);
    // the node drops branch A and builds a longer branch B: buy ETH with only 100k USDC
    await pub.request({ method: 'evm_revert' as never, params: [snapshot] as never });
    const receipt = await routerSwap(
      toks().usdc.address,
      toks().weth.address,
      100_000n * 10n ** 6n,
    );
    await pub.request({ method: 'evm_mine' as never, params: [] as never });
    await pub.request({ method: 'evm_mine' as never, params: [] as never });
    await sync();
    const b = await wethUsd();
    expect(b.price).toBeLessThan(a.price);
    expectClose((await row(toks().weth.address))?.price_usd, b.price);
    expectClose((await row(toks().slc.address))?.price_usd, (await slcUsd()).price);
    // history has branch B's point at the swap block, nothing of branch A
    const { rows } = await db.query<{ price_usd: number; block_number: string }>(
      `select price_usd, block_number::text from price_history
        where chain_id = $1 and token = $2 and block_number >= $3 order by block_number`,
      [chainId, toks().weth.address, Number(receipt.blockNumber) - 1],
    );
    expect(rows.map((r) => r.block_number)).toEqual([receipt.blockNumber.toString()]);
    expectClose(rows[0]?.price_usd, b.price);
  });
});
