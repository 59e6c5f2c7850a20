import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PriceAtRequest } from '../../src/api/context.js';
import { pricesAt } from '../../src/pricing/price-queries.js';
import { startTestApi, type TestApi } from '../support/api-harness.js';
import { insertBlocks } from '../support/seed-chain.js';
import {
  addr,
  insertActivity,
  insertErc20Balances,
  insertNativeBalances,
  insertTokens,
  setCheckpoint,
  txHash,
} from '../support/seed-store.js';

/**
 * Portfolio series and the historical balances' range rules on a seeded store: blocks every six
 * hours over the last three days, a priced token whose balance moves, an unpriced one, native ETH
 * priced through the wrapped native, and a rebasing token the store cannot derive (no node).
 */
const DAY = 86_400;
const wallet = addr('portfolio-wallet');
const priced = addr('portfolio-priced');
const unpriced = addr('portfolio-unpriced');
const rebasing = addr('portfolio-rebasing');
const weth = addr('portfolio-weth');
const e18 = 10n ** 18n;
let api: TestApi;
let today = 0;
/** Block number of the first block at or after `t`. */
const blocks: { number: number; time: number }[] = [];
const blockAt = (t: number) => blocks.find((b) => b.time >= t) as { number: number; time: number };

beforeAll(async () => {
  let db: TestApi['t']['db'] | undefined;
  api = await startTestApi({
    pricing: {
      pricesAt: (items: readonly PriceAtRequest[]) => pricesAt(db!, items),
      tokenLinks: () => undefined,
    },
    responseCache: { maxBytes: 1_000_000, maxAgeMs: 60_000 },
  });
  db = api.t.db;
  const now = Math.floor(Date.now() / 1000);
  today = Math.floor(now / DAY) * DAY;
  // From 06:00 three days ago to now, every six hours, plus one block just before now.
  for (let t = today - 3 * DAY + 6 * 3600; t < now; t += 6 * 3600) {
    blocks.push({ number: 10 + blocks.length, time: t });
  }
  blocks.push({ number: 10 + blocks.length, time: now - 1 });
  await insertBlocks(
    db,
    blocks.map((b) => ({ chainId: 31337, number: b.number, time: b.time })),
  );
  const head = blocks.at(-1)!.number;
  await setCheckpoint(db, 31337, { indexedBlock: head, backfillDone: true });
  await insertTokens(db, [
    {
      chainId: 31337,
      address: priced,
      standard: 'erc20',
      name: 'Priced',
      symbol: 'PRC',
      decimals: 18,
    },
    {
      chainId: 31337,
      address: unpriced,
      standard: 'erc20',
      name: 'None',
      symbol: 'NON',
      decimals: 6,
    },
    {
      chainId: 31337,
      address: rebasing,
      standard: 'erc20',
      name: 'Reb',
      symbol: 'REB',
      decimals: 18,
    },
  ]);
  await db.query(
    `update tokens set balance_model = 'non_conserving' where chain_id = 31337 and address = $1`,
    [rebasing],
  );
  const first = blocks[0]!;
  const dMinus1 = blockAt(today - DAY);
  const d0 = blocks.at(-1)!;
  const move = (
    b: { number: number; time: number },
    type: string,
    token: string,
    value: bigint,
    i: number,
  ) => ({
    chainId: 31337,
    wallet,
    blockTime: b.time,
    blockNumber: b.number,
    txIndex: i,
    logIndex: 0,
    txHash: txHash(1000 + i),
    type,
    assetType: 'erc20',
    tokenAddress: token,
    value: value.toString(),
  });
  // priced: +100 on the first block, +250 at the start of yesterday, -50 just before now.
  await insertActivity(db, [
    move(first, 'receive', priced, 100n * e18, 1),
    move(dMinus1, 'mint', priced, 250n * e18, 2),
    move(d0, 'send', priced, 50n * e18, 3),
    move(first, 'receive', unpriced, 7_000_000n, 4),
    move(first, 'receive', rebasing, 5n * e18, 5),
  ]);
  await insertErc20Balances(db, [
    { chainId: 31337, wallet, token: priced, amount: (300n * e18).toString() },
    { chainId: 31337, wallet, token: unpriced, amount: '7000000' },
    { chainId: 31337, wallet, token: rebasing, amount: (6n * e18).toString() },
  ]);
  await insertNativeBalances(db, [
    { chainId: 31337, wallet, amount: (2n * e18).toString() }, // updated_block 1: before every day
  ]);
  await db.query(
    `insert into pricing_cursors (chain_id, last_block, wrapped_native, stablecoins) values (31337, $1, $2, '{}')`,
    [head, weth],
  );
  const price = (token: string, b: { number: number; time: number }, usd: number) =>
    db!.query(
      `insert into price_history (chain_id, token, block_number, time, price_usd, quote, price_in_quote)
       values (31337, $1, $2, to_timestamp($3), $4, 'usd', $4)`,
      [token, b.number, b.time, usd],
    );
  await price(priced, first, 2);
  await price(priced, dMinus1, 3);
  await price(weth, first, 1000);
}, 60_000);
afterAll(async () => {
  await api?.close();
});

type Point = {
  date: string;
  value_usd: number;
  priced_tokens: number;
  unpriced_count: number;
  complete: boolean;
  chains: {
    chain_id: number;
    block_number: number | null;
    value_usd: number | null;
    unpriced_tokens: string[];
    complete: boolean;
  }[];
};

describe('GET /v1/evm/portfolio/{address}', () => {
  it('daily values from balance history x price history, unpriced listed, no NaN', async () => {
    const res = await api.get(`/v1/evm/portfolio/${wallet}?chain_ids=31337&days=5`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      days: number;
      points: Point[];
      warnings?: { code: string; message: string }[];
    };
    expect(body.days).toBe(5);
    expect(body.points.map((p) => p.date)).toEqual(
      [4, 3, 2, 1, 0].map((k) => new Date((today - k * DAY) * 1000).toISOString().slice(0, 10)),
    );
    const values = body.points.map((p) => p.chains[0]?.value_usd);
    // Four days ago: before the first indexed block. Then 100 x 2 + 2 ETH x 1000, twice; then
    // 350 x 3 + 2000 at the end of yesterday; 300 x 3 + 2000 now.
    expect(values).toEqual([null, 2200, 2200, 3050, 2900]);
    expect(body.points.map((p) => p.value_usd)).toEqual([0, 2200, 2200, 3050, 2900]);
    for (const p of body.points.slice(1)) {
      expect(p.chains[0]?.unpriced_tokens).toEqual([unpriced]);
      expect(p.unpriced_count).toBe(1);
      expect(p.priced_tokens).toBe(2);
      // The rebasing token needs the node at that block, and this chain has none configured.
      expect(p.complete).toBe(false);
    }
    expect(body.points[0]?.chains[0]?.block_number).toBeNull();
    expect(body.warnings?.map((w) => w.code)).toEqual(['HISTORICAL_STATE_UNAVAILABLE']);
    expect(body.warnings?.[0]?.message).toContain(rebasing);
    expect(JSON.stringify(body)).not.toMatch(/NaN|Infinity/);
  });

  it('default 30 days, larger values reduced to 365, bad parameters are 400 {message}', async () => {
    const def = (await (await api.get(`/v1/evm/portfolio/${wallet}?chain_ids=31337`)).json()) as {
      points: unknown[];
    };
    expect(def.points).toHaveLength(30);
    const max = (await (
      await api.get(`/v1/evm/portfolio/${wallet}?chain_ids=31337&days=100000`)
    ).json()) as { days: number; points: unknown[] };
    expect(max.days).toBe(365);
    expect(max.points).toHaveLength(365);
    for (const [q, message] of [
      ['days=0', /days.*at least 1/],
      ['days=abc', /days/],
      ['days=-3', /days/],
      ['chain_ids=ethereum', /chain_ids/],
    ] as const) {
      const res = await api.get(`/v1/evm/portfolio/${wallet}?${q}`);
      expect(res.status, q).toBe(400);
      expect(((await res.json()) as { message: string }).message, q).toMatch(message);
    }
    const badWallet = await api.get('/v1/evm/portfolio/0x123');
    expect(badWallet.status).toBe(400);
    const noKey = await api.get(`/v1/evm/portfolio/${wallet}`, {});
    expect(noKey.status).toBe(401);
    api.setReady(31337, false);
    try {
      const notReady = await api.get(`/v1/evm/portfolio/${wallet}?chain_ids=31337`);
      expect(notReady.status).toBe(503);
    } finally {
      api.setReady(31337, true);
    }
  });

  it('documents itself in OpenAPI', async () => {
    const doc = (await (await api.get('/openapi.json', {})).json()) as {
      paths: Record<string, { get?: { parameters?: { name: string }[] } }>;
    };
    const params = doc.paths['/v1/evm/portfolio/{address}']?.get?.parameters?.map((p) => p.name);
    expect(params).toEqual(expect.arrayContaining(['address', 'chain_ids', 'days']));
    const balances = doc.paths['/v1/evm/balances/{address}']?.get?.parameters?.map((p) => p.name);
    expect(balances).toEqual(expect.arrayContaining(['block_number', 'as_of']));
  });
});

describe('response cache', () => {
  it('a repeated history or portfolio request is a hit until the store changes', async () => {
    const head = blocks.at(-1)!.number;
    for (const path of [
      `/v1/evm/balances/${wallet}?chain_ids=31337&block_number=${head - 1}`,
      `/v1/evm/portfolio/${wallet}?chain_ids=31337&days=3`,
    ]) {
      const first = await api.get(path);
      expect(first.status).toBe(200);
      const second = await api.get(path);
      expect(second.headers.get('x-cache'), path).toBe('hit');
      expect(await second.json()).toMatchObject({ wallet_address: wallet });
      const fresh = await api.get(path, { 'x-sim-api-key': api.key, 'cache-control': 'no-cache' });
      expect(fresh.headers.get('x-cache')).toBe('bypass');
    }
  });
});

describe('balances at a past block on a seeded store', () => {
  it('exact from events for conserving tokens; below the first indexed block is a 400', async () => {
    const at = blockAt(today - DAY).number - 1; // end of the day before yesterday's first block
    const res = await api.get(`/v1/evm/balances/${wallet}?chain_ids=31337&block_number=${at}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      balances: { address: string; amount: string; price_usd?: number; value_usd?: number }[];
      warnings?: { code: string }[];
    };
    const byToken = Object.fromEntries(body.balances.map((b) => [b.address, b]));
    expect(byToken.native?.amount).toBe((2n * e18).toString());
    expect(byToken.native?.price_usd).toBe(1000);
    expect(byToken[priced]?.amount).toBe((100n * e18).toString());
    expect(byToken[priced]?.price_usd).toBe(2);
    expect(byToken[priced]?.value_usd).toBe(200);
    expect(byToken[unpriced]?.price_usd).toBeUndefined();
    expect(byToken[rebasing]).toBeUndefined();
    expect(body.warnings?.[0]?.code).toBe('HISTORICAL_STATE_UNAVAILABLE');
    const unpricedOut = (await (
      await api.get(
        `/v1/evm/balances/${wallet}?chain_ids=31337&block_number=${at}&exclude_unpriced=true`,
      )
    ).json()) as { balances: { address: string }[] };
    expect(unpricedOut.balances.map((b) => b.address).sort()).toEqual(['native', priced].sort());
    // historical_prices count back from the block's time (price 2 two days ago, 3 since yesterday).
    const atYesterday = blockAt(today - DAY).number;
    const hp = (await (
      await api.get(
        `/v1/evm/balances/${wallet}?chain_ids=31337&block_number=${atYesterday}&historical_prices=24`,
      )
    ).json()) as {
      balances: { address: string; price_usd?: number; historical_prices?: unknown[] }[];
    };
    const hpPriced = hp.balances.find((b) => b.address === priced);
    expect(hpPriced?.price_usd).toBe(3);
    expect(hpPriced?.historical_prices).toEqual([{ offset_hours: 24, price_usd: 2 }]);
    const below = await api.get(`/v1/evm/balances/${wallet}?chain_ids=31337&block_number=3`);
    expect(below.status).toBe(400);
    expect(((await below.json()) as { message: string }).message).toMatch(
      /below the first indexed block 10/,
    );
  });
});
