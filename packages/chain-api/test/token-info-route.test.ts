import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveChainConfig } from '../src/chains/index.js';
import { startTestApi, type TestApi } from './support/api-harness.js';
import { assertMatchesReference, referenceAvailable } from './support/reference-schemas.js';
import { addr, insertErc20Balances, insertPrices, insertTokens } from './support/seed-store.js';

const token = addr('info-token');
const unpriced = addr('info-unpriced');
// The devnet chain is indexed from genesis (supply = sum of balances); ethereum is configured
// from a later block here, so its supply is unknown.
const devnet = { ...resolveChainConfig(31337), startBlock: 0n };
const ethereum = { ...resolveChainConfig(1), startBlock: 18_000_000n };

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi({
    chains: [ethereum, devnet],
    pricing: {
      async pricesAt(items) {
        return items.map((item) => (item.token === token ? 1.5 : null));
      },
      tokenLinks: (_chainId, t) =>
        t === token ? { logo: 'https://logos.example/t.png' } : undefined,
    },
  });
  const db = api.t.db;
  for (const chainId of [1, 31337]) {
    await insertTokens(db, [
      { chainId, address: token, standard: 'erc20', name: 'Info', symbol: 'INF', decimals: 6 },
      { chainId, address: unpriced, standard: 'erc20', name: 'Bare', symbol: 'B', decimals: 18 },
    ]);
    await insertErc20Balances(db, [
      { chainId, wallet: addr('info-a'), token, amount: '3000000' },
      { chainId, wallet: addr('info-b'), token, amount: '7000000' },
      { chainId, wallet: addr('info-c'), token, amount: '0' },
      { chainId, wallet: addr('info-a'), token: unpriced, amount: '5' },
    ]);
    await insertPrices(db, [
      { chainId, token, priceUsd: 2, poolSize: 123_456, lowLiquidity: false },
      { chainId, token: 'native', priceUsd: 3000, poolSize: 9_000_000, lowLiquidity: false },
    ]);
  }
});

afterAll(async () => {
  await api?.close();
});

const get = async (path: string) => {
  const res = await api.get(`/v1/evm/token-info/${path}`);
  const text = await res.text();
  return {
    res,
    text,
    body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined,
  };
};

describe('GET /v1/evm/token-info/{address}', () => {
  it('ERC20: metadata, price, pool size, supply and market cap, logo', async () => {
    const { res, body } = await get(`${token}?chain_ids=31337&historical_prices=24,168`);
    expect(res.status).toBe(200);
    if (referenceAvailable()) assertMatchesReference('TokensResponse', body);
    expect(body).toEqual({
      contract_address: token,
      tokens: [
        {
          chain: devnet.name,
          chain_id: 31337,
          symbol: 'INF',
          name: 'Info',
          decimals: 6,
          price_usd: 2,
          pool_size: 123_456,
          low_liquidity: false,
          historical_prices: [
            { offset_hours: 24, price_usd: 1.5 },
            { offset_hours: 168, price_usd: 1.5 },
          ],
          total_supply: '10000000',
          market_cap: 20,
          logo: 'https://logos.example/t.png',
        },
      ],
    });
  });

  it('no supply where the chain is not indexed from genesis; no market cap without a price', async () => {
    const eth = await get(`${token}?chain_ids=1`);
    expect(eth.body.tokens[0].total_supply).toBeUndefined();
    expect(eth.body.tokens[0].market_cap).toBeUndefined();
    const bare = await get(`${unpriced}?chain_ids=31337`);
    expect(bare.body.tokens[0]).toMatchObject({ symbol: 'B', total_supply: '5' });
    expect(bare.body.tokens[0].price_usd).toBeUndefined();
    expect(bare.body.tokens[0].market_cap).toBeUndefined();
  });

  it('native: the chain native asset with its price', async () => {
    const { res, body } = await get('native?chain_ids=1');
    expect(res.status).toBe(200);
    if (referenceAvailable()) assertMatchesReference('TokensResponse', body);
    expect(body.contract_address).toBe('native');
    expect(body.tokens[0]).toMatchObject({
      chain_id: 1,
      symbol: ethereum.nativeSymbol,
      decimals: 18,
      price_usd: 3000,
    });
  });

  it('an unsupported chain warns with no tokens', async () => {
    const { res, body } = await get(`${token}?chain_ids=999999`);
    expect(res.status).toBe(200);
    expect(body.tokens).toEqual([]);
    expect(body.warnings[0].code).toBe('UNSUPPORTED_CHAIN_IDS');
  });

  it('404 for an unknown token; plain-text 400s for bad parameters', async () => {
    const missing = await get(`${addr('info-never')}?chain_ids=1`);
    expect(missing.res.status).toBe(404);
    expect(missing.res.headers.get('content-type')).toMatch(/text\/plain/);
    expect(missing.text).toBe('Token not found');
    const cases: [string, RegExp][] = [
      [`0x12?chain_ids=1`, /address/],
      [`${token}`, /chain_ids/],
      [`${token}?chain_ids=1,31337`, /chain_ids/],
      [`${token}?chain_ids=ethereum`, /chain_ids/],
      [`${token}?chain_ids=1&historical_prices=abc`, /historical_prices/],
    ];
    for (const [path, pattern] of cases) {
      const { res, text } = await get(path);
      expect(res.status, path).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/text\/plain/);
      expect(text).toMatch(pattern);
    }
  });

  it('requires an API key', async () => {
    const res = await api.get(`/v1/evm/token-info/native?chain_ids=1`, {});
    expect(res.status).toBe(401);
  });
});
