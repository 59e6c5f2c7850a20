import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PriceAtRequest } from '../src/api/context.js';
import { createTokenMetadataLookup } from '../src/pricing/token-metadata.js';
import { startTestApi, type TestApi, testChains } from './support/api-harness.js';
import { assertMatchesReference, referenceAvailable } from './support/reference-schemas.js';
import {
  addr,
  insertErc20Balances,
  insertNativeBalances,
  insertPrices,
  insertTokens,
} from './support/seed-store.js';

const chains = testChains();
const ethereum = chains[0]!;
const usdc = ethereum.stablecoins[0]!;
const wallet = addr('bal-wallet');
const whale = addr('bal-whale');
const good = addr('tok-good');
const spam = addr('tok-spam');
const unpriced = addr('tok-unpriced');
const nopool = addr('tok-nopool');
const empty = addr('tok-empty');
const pool = addr('pool-good');

const realLinks = createTokenMetadataLookup([ethereum]);
let api: TestApi;
const historyCalls: PriceAtRequest[][] = [];

beforeAll(async () => {
  api = await startTestApi({
    pricing: {
      // A deterministic history: the good token was worth 2 USD 24 h ago, nothing older than 100 h.
      async pricesAt(items) {
        historyCalls.push([...items]);
        const now = Date.now();
        return items.map((item) => {
          const hoursAgo = (now - item.time.getTime()) / 3_600_000;
          if (item.token !== good || hoursAgo >= 100) return null;
          return hoursAgo > 12 ? 2 : 2.5;
        });
      },
      // The good token's links are made up; the rest come from the real token list and registry.
      tokenLinks: (chainId, token) =>
        token === good
          ? { logo: 'https://logos.example/good.png', url: 'https://good.example' }
          : realLinks.get(chainId, token),
    },
  });
  const db = api.t.db;
  await insertTokens(db, [
    { chainId: 1, address: usdc, standard: 'erc20', name: 'USD Coin', symbol: 'USDC', decimals: 6 },
    { chainId: 1, address: good, standard: 'erc20', name: 'Good', symbol: 'GOOD', decimals: 18 },
    {
      chainId: 1,
      address: spam,
      standard: 'erc20',
      name: 'Claim rewards',
      symbol: 'SPAM',
      decimals: 18,
    },
    { chainId: 1, address: unpriced, standard: 'erc20', name: 'Thin', symbol: 'THIN', decimals: 8 },
    { chainId: 1, address: nopool, standard: 'erc20', name: null, symbol: null, decimals: null },
    { chainId: 1, address: empty, standard: 'erc20', name: 'Empty', symbol: 'E', decimals: 18 },
  ]);
  await insertNativeBalances(db, [
    { chainId: 1, wallet, amount: '2000000000000000000' },
    { chainId: 8453, wallet, amount: '0' },
    { chainId: 31337, wallet, amount: '5' },
  ]);
  await insertErc20Balances(db, [
    { chainId: 1, wallet, token: usdc, amount: '1500000' },
    { chainId: 1, wallet, token: good, amount: '3000000000000000000' },
    { chainId: 1, wallet, token: spam, amount: '1000000000000000000000000' },
    { chainId: 1, wallet, token: unpriced, amount: '100000000' },
    { chainId: 1, wallet, token: nopool, amount: '42' },
    { chainId: 1, wallet, token: empty, amount: '0' },
  ]);
  await insertPrices(db, [
    { chainId: 1, token: 'native', priceUsd: 3000, poolSize: 5_000_000, lowLiquidity: false },
    { chainId: 1, token: usdc, priceUsd: 1, poolSize: 5_000_000, lowLiquidity: false },
    {
      chainId: 1,
      token: good,
      priceUsd: 3,
      poolSize: 50_000,
      lowLiquidity: false,
      poolAddress: pool,
      poolType: 'uniswap_v2',
      poolTokens: [good, usdc],
    },
    { chainId: 1, token: spam, priceUsd: 0.5, poolSize: 50, lowLiquidity: true },
    { chainId: 1, token: unpriced, priceUsd: null, poolSize: 500, lowLiquidity: true },
  ]);
  // 1,200 tokens for the whale, to page through.
  const tokens = Array.from({ length: 1200 }, (_, i) => addr('whale-token', i));
  await insertTokens(
    db,
    tokens.map((address, i) => ({
      chainId: 1,
      address,
      standard: 'erc20' as const,
      name: `T${i}`,
      symbol: `T${i}`,
      decimals: 18,
    })),
  );
  await insertErc20Balances(
    db,
    tokens.map((token, i) => ({ chainId: 1, wallet: whale, token, amount: String(i + 1) })),
  );
});

afterAll(async () => {
  await api?.close();
});

type Body = Record<string, unknown> & { balances: Record<string, unknown>[] };
const json = async (res: Response) => (await res.json()) as Body;
const path = (query = '', who = wallet) => `/v1/evm/balances/${who}${query}`;
const addresses = (body: Body) => body.balances.map((b) => `${b.chain_id}:${b.address}`);

describe('GET /v1/evm/balances/{address}', () => {
  it('native + ERC20 with prices, values and liquidity, shaped like the peer', async () => {
    const res = await api.get(path());
    expect(res.status).toBe(200);
    const body = await json(res);
    if (referenceAvailable()) assertMatchesReference('BalancesResponse', body);
    expect(body.wallet_address).toBe(wallet);
    expect(Date.parse(body.request_time as string)).toBeLessThanOrEqual(
      Date.parse(body.response_time as string),
    );
    expect(body.next_offset).toBeUndefined();
    // Zero balances are not listed; native first per chain, then by token address.
    expect(addresses(body)).toEqual([
      '1:native',
      ...[usdc, good, spam, unpriced, nopool].sort().map((a) => `1:${a}`),
      '31337:native',
    ]);
    const byAddress = new Map(
      body.balances.map((b) => [b.address === 'native' ? `native:${b.chain_id}` : b.address, b]),
    );
    expect(byAddress.get('native:1')).toEqual({
      chain: 'ethereum',
      chain_id: 1,
      address: 'native',
      amount: '2000000000000000000',
      symbol: 'ETH',
      name: 'Ether',
      decimals: 18,
      price_usd: 3000,
      value_usd: 6000,
      pool_size: 5_000_000,
      low_liquidity: false,
    });
    expect(byAddress.get(good)).toMatchObject({
      symbol: 'GOOD',
      decimals: 18,
      price_usd: 3,
      value_usd: 9,
      pool_size: 50_000,
      low_liquidity: false,
    });
    expect(byAddress.get(spam)).toMatchObject({
      price_usd: 0.5,
      value_usd: 500_000,
      pool_size: 50,
      low_liquidity: true,
    });
    const thin = byAddress.get(unpriced)!;
    expect(thin).toMatchObject({ pool_size: 500, low_liquidity: true });
    expect(thin).not.toHaveProperty('price_usd');
    expect(thin).not.toHaveProperty('value_usd');
    const bare = byAddress.get(nopool)!;
    expect(bare).toEqual({
      chain: 'ethereum',
      chain_id: 1,
      address: nopool,
      amount: '42',
      low_liquidity: true,
    });
    expect(byAddress.get('native:31337')).not.toHaveProperty('price_usd');
  });

  it('filters=native|erc20, asset_class=stablecoin', async () => {
    expect(addresses(await json(await api.get(path('?filters=native'))))).toEqual([
      '1:native',
      '31337:native',
    ]);
    const erc20 = await json(await api.get(path('?filters=erc20&chain_ids=1')));
    expect(erc20.balances.every((b) => b.address !== 'native')).toBe(true);
    expect(erc20.balances).toHaveLength(5);
    expect(addresses(await json(await api.get(path('?asset_class=stablecoin'))))).toEqual([
      `1:${usdc}`,
    ]);
  });

  it('exclude_spam_tokens drops pools under 100 USD and tokens without pool; exclude_unpriced drops unpriced', async () => {
    const noSpam = await json(await api.get(path('?exclude_spam_tokens=true&chain_ids=1')));
    expect(addresses(noSpam)).toEqual([
      '1:native',
      ...[usdc, good, unpriced].sort().map((a) => `1:${a}`),
    ]);
    const priced = await json(await api.get(path('?exclude_unpriced=true')));
    expect(addresses(priced)).toEqual([
      '1:native',
      ...[usdc, good, spam].sort().map((a) => `1:${a}`),
    ]);
    const both = await json(await api.get(path('?exclude_unpriced=true&exclude_spam_tokens=true')));
    expect(addresses(both)).toEqual(['1:native', ...[usdc, good].sort().map((a) => `1:${a}`)]);
  });

  it('bare flags: exclude_spam_tokens and exclude_unpriced without a value read as true', async () => {
    const expected = {
      exclude_spam_tokens: addresses(
        await json(await api.get(path('?exclude_spam_tokens=true&chain_ids=1'))),
      ),
      exclude_unpriced: addresses(
        await json(await api.get(path('?exclude_unpriced=true&chain_ids=1'))),
      ),
    };
    const unfiltered = addresses(await json(await api.get(path('?chain_ids=1'))));
    for (const [flag, want] of Object.entries(expected)) {
      expect(want).not.toEqual(unfiltered);
      for (const form of [
        `?${flag}&chain_ids=1`,
        `?chain_ids=1&${flag}=`,
        `?${flag}=TRUE&chain_ids=1`,
      ]) {
        expect(addresses(await json(await api.get(path(form)))), form).toEqual(want);
      }
      expect(addresses(await json(await api.get(path(`?${flag}=false&chain_ids=1`))))).toEqual(
        unfiltered,
      );
    }
  });

  it('metadata=logo,url,pools adds token_metadata and the pricing pool', async () => {
    const body = await json(await api.get(path('?chain_ids=1&metadata=logo,url,pools')));
    if (referenceAvailable()) assertMatchesReference('BalancesResponse', body);
    const g = body.balances.find((b) => b.address === good)!;
    expect(g.token_metadata).toEqual({
      logo: 'https://logos.example/good.png',
      url: 'https://good.example',
    });
    expect(g.pool).toEqual({
      pool_type: 'uniswap_v2',
      address: pool,
      chain_id: 1,
      tokens: [good, usdc],
    });
    expect(body.balances.find((b) => b.address === spam)).not.toHaveProperty('pool');
    // Mainnet USDC: logo from the Uniswap default token list; ETH: the registry's native logo.
    expect(body.balances.find((b) => b.address === usdc)!.token_metadata).toEqual({
      logo: expect.stringMatching(
        /^https:\/\/.*0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48\/logo\.png$/,
      ),
      url: `https://etherscan.io/token/${usdc}`,
    });
    expect(
      body.balances.find((b) => b.address === 'native' && b.chain_id === 1)!.token_metadata,
    ).toEqual({
      logo: 'https://raw.githubusercontent.com/trustwallet/assets/master/blockchains/ethereum/info/logo.png',
      url: 'https://etherscan.io',
    });
    const pools = await json(await api.get(path('?chain_ids=1&metadata=pools')));
    expect(pools.balances.find((b) => b.address === good)).not.toHaveProperty('token_metadata');
  });

  it('historical_prices: one entry per offset with a known price, in one lookup', async () => {
    historyCalls.length = 0;
    const body = await json(await api.get(path('?chain_ids=1&historical_prices=1,24,168')));
    if (referenceAvailable()) assertMatchesReference('BalancesResponse', body);
    expect(historyCalls).toHaveLength(1);
    expect(historyCalls[0]).toHaveLength(6 * 3);
    const g = body.balances.find((b) => b.address === good)!;
    expect(g.historical_prices).toEqual([
      { offset_hours: 1, price_usd: 2.5 },
      { offset_hours: 24, price_usd: 2 },
    ]);
    expect(body.balances.find((b) => b.address === spam)!.historical_prices).toEqual([]);
    expect(body.balances[0]).toHaveProperty('historical_prices');
    const plain = await json(await api.get(path('?chain_ids=1')));
    expect(plain.balances[0]).not.toHaveProperty('historical_prices');
  });

  it('limit: default 1000, clamps above 1000, pages through 1,200 tokens exactly once', async () => {
    const first = await json(await api.get(path('?limit=5000', whale)));
    expect(first.balances).toHaveLength(1000);
    expect(typeof first.next_offset).toBe('string');
    const def = await json(await api.get(path('', whale)));
    expect(def.balances).toHaveLength(1000);
    const seen: string[] = [];
    let offset: string | undefined;
    do {
      const body = await json(
        await api.get(path(`?limit=350${offset ? `&offset=${offset}` : ''}`, whale)),
      );
      seen.push(...body.balances.map((b) => b.address as string));
      offset = body.next_offset as string | undefined;
    } while (offset);
    expect(seen).toHaveLength(1200);
    expect(new Set(seen).size).toBe(1200);
    expect(seen).toEqual([...seen].sort());
  });

  it('unsupported chain ids: warning plus results for the rest', async () => {
    const body = await json(await api.get(path('?chain_ids=1,9999,77777777777')));
    expect(body.warnings).toEqual([
      {
        code: 'UNSUPPORTED_CHAIN_IDS',
        message:
          'Some requested chain_ids are not supported. Balances are returned only for supported chains.',
        chain_ids: [9999, 77777777777],
        docs_url: `${api.url}/v1/evm/supported-chains`,
      },
    ]);
    expect(body.balances.length).toBeGreaterThan(0);
    if (referenceAvailable()) assertMatchesReference('BalancesResponse', body);
  });

  it('400 {message} naming the parameter', async () => {
    const cases: [string, string][] = [
      ['/v1/evm/balances/0xnothex', 'address'],
      [path('?filters=erc721'), 'filters'],
      [path('?asset_class=meme'), 'asset_class'],
      [path('?metadata=logo,price'), 'metadata'],
      [path('?exclude_spam_tokens=yes'), 'exclude_spam_tokens'],
      [path('?exclude_unpriced=2'), 'exclude_unpriced'],
      [path('?historical_prices=1,2,3,4'), 'historical_prices'],
      [path('?historical_prices=0'), 'historical_prices'],
      [path('?limit=-3'), 'limit'],
      [path('?offset=abc.def'), 'offset'],
      [path('?chain_ids=base'), 'chain_ids'],
    ];
    for (const [url, name] of cases) {
      const res = await api.get(url);
      expect(res.status, url).toBe(400);
      expect(res.headers.get('content-type'), url).toMatch(/^application\/json/);
      const body = (await res.json()) as { message: string };
      expect(Object.keys(body), url).toEqual(['message']);
      expect(body.message, url).toContain(`'${name}'`);
    }
  });

  it('503 {message} while a requested chain is not ready', async () => {
    api.setReady(31337, false);
    try {
      const res = await api.get(path());
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ message: expect.stringMatching(/^Try again later/) });
      expect((await api.get(path('?chain_ids=1'))).status).toBe(200);
    } finally {
      api.setReady(31337, true);
    }
  });
});

describe('GET /v1/evm/balances/{address}/token/{token_address}', () => {
  const tokenPath = (token: string, query: string) =>
    `/v1/evm/balances/${wallet}/token/${token}${query}`;

  it('one token on one chain, in the balances shape', async () => {
    const body = await json(
      await api.get(tokenPath(good, '?chain_ids=1&metadata=pools&historical_prices=24')),
    );
    if (referenceAvailable()) assertMatchesReference('SingleBalanceResponse', body);
    expect(body.wallet_address).toBe(wallet);
    expect(body.balances).toEqual([
      expect.objectContaining({
        chain: 'ethereum',
        chain_id: 1,
        address: good,
        amount: '3000000000000000000',
        price_usd: 3,
        value_usd: 9,
        pool: expect.objectContaining({ address: pool }),
        historical_prices: [{ offset_hours: 24, price_usd: 2 }],
      }),
    ]);
  });

  it('native, tags that name one chain, and never-held tokens (amount 0)', async () => {
    const native = await json(await api.get(tokenPath('native', '?chain_ids=1')));
    expect(native.balances[0]).toMatchObject({
      address: 'native',
      amount: '2000000000000000000',
      symbol: 'ETH',
    });
    const devnet = await json(await api.get(tokenPath('native', '?chain_ids=devnet')));
    expect(devnet.balances[0]).toMatchObject({ chain_id: 31337, amount: '5' });
    const zero = await json(await api.get(tokenPath(empty, '?chain_ids=1')));
    expect(zero.balances[0]).toMatchObject({ address: empty, amount: '0', symbol: 'E' });
    const never = await json(await api.get(tokenPath(addr('never'), '?chain_ids=8453')));
    expect(never.balances).toEqual([
      { chain: 'base', chain_id: 8453, address: addr('never'), amount: '0', low_liquidity: true },
    ]);
    const nativeZero = await json(
      await api.get(`/v1/evm/balances/${addr('nobody')}/token/native?chain_ids=1`),
    );
    expect(nativeZero.balances[0]).toMatchObject({ amount: '0', price_usd: 3000, value_usd: 0 });
    if (referenceAvailable()) assertMatchesReference('SingleBalanceResponse', nativeZero);
  });

  it('chain_ids is required and must be one chain: 400 {message}', async () => {
    for (const query of [
      '',
      '?chain_ids=',
      '?chain_ids=1,8453',
      '?chain_ids=mainnet',
      '?chain_ids=default',
      '?chain_ids=ethereum',
    ]) {
      const res = await api.get(tokenPath(good, query));
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { message: string }).message, query).toContain("'chain_ids'");
    }
    const bad = await api.get(tokenPath('0x1234', '?chain_ids=1'));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toContain("'token_address'");
  });

  it('an unsupported single chain id is a warning with no balances', async () => {
    const body = await json(await api.get(tokenPath(good, '?chain_ids=424242')));
    expect(body.balances).toEqual([]);
    expect(body.warnings).toEqual([
      expect.objectContaining({ code: 'UNSUPPORTED_CHAIN_IDS', chain_ids: [424242] }),
    ]);
  });

  it('503 {message} when the chain is not ready', async () => {
    api.setReady(1, false);
    try {
      const res = await api.get(tokenPath(good, '?chain_ids=1'));
      expect(res.status).toBe(503);
      expect(Object.keys(await res.json())).toEqual(['message']);
    } finally {
      api.setReady(1, true);
    }
  });
});
