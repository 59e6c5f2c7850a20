import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './support/api-harness.js';
import { assertMatchesReference, referenceAvailable } from './support/reference-schemas.js';
import { addr, insertErc20Balances, insertPrices, insertTokens } from './support/seed-store.js';

const usdcEth = addr('search-usdc-eth');
const usdcBase = addr('search-usdc-base');
const usdFake = addr('search-usd-fake');
const usdHeld = addr('search-usd-held');
const nameOnly = addr('search-name');
const nft = addr('search-nft');
const pct = addr('search-pct');

for (const kind of ['postgres', 'pglite'] as const) {
  describe(`GET /v1/evm/search/tokens (${kind})`, () => {
    let api: TestApi;

    beforeAll(async () => {
      api = await startTestApi({
        kind,
        pricing: {
          pricesAt: async (items) => items.map(() => null),
          tokenLinks: (_c, t) =>
            t === usdcEth ? { logo: 'https://logos.example/usdc.png' } : undefined,
        },
      });
      const db = api.t.db;
      await insertTokens(db, [
        {
          chainId: 1,
          address: usdcEth,
          standard: 'erc20',
          name: 'USD Coin',
          symbol: 'USDC',
          decimals: 6,
        },
        {
          chainId: 8453,
          address: usdcBase,
          standard: 'erc20',
          name: 'USD Coin',
          symbol: 'USDC',
          decimals: 6,
        },
        {
          chainId: 1,
          address: usdFake,
          standard: 'erc20',
          name: 'usd reward',
          symbol: 'USDX',
          decimals: 18,
        },
        {
          chainId: 1,
          address: usdHeld,
          standard: 'erc20',
          name: 'Held USD',
          symbol: 'USDH',
          decimals: null,
        },
        {
          chainId: 1,
          address: nameOnly,
          standard: 'erc20',
          name: 'Usdollar',
          symbol: 'ZZZ',
          decimals: 2,
        },
        {
          chainId: 1,
          address: nft,
          standard: 'erc721',
          name: 'USD Apes',
          symbol: 'USDA',
          decimals: null,
        },
        {
          chainId: 1,
          address: pct,
          standard: 'erc20',
          name: '100% real',
          symbol: '1%_',
          decimals: 18,
        },
      ]);
      await insertPrices(db, [
        { chainId: 1, token: usdcEth, priceUsd: 1, poolSize: 5_000_000, lowLiquidity: false },
        { chainId: 8453, token: usdcBase, priceUsd: 1, poolSize: 9_000_000, lowLiquidity: false },
      ]);
      await insertErc20Balances(
        db,
        [1, 2, 3].map((i) => ({
          chainId: 1,
          wallet: addr('searcher', i),
          token: usdHeld,
          amount: '1',
        })),
      );
    });

    afterAll(async () => {
      await api?.close();
    });

    const search = async (query: string) => {
      const res = await api.get(`/v1/evm/search/tokens?${query}`);
      return { res, body: (await res.json()) as Record<string, unknown>[] };
    };

    it('prefix on symbol or name, ERC20 only, ranked by liquidity then holders', async () => {
      const { res, body } = await search('query=usd');
      expect(res.status).toBe(200);
      if (referenceAvailable()) assertMatchesReference('TokenSearchResponse', body);
      expect(body.map((t) => t.address)).toEqual([usdcBase, usdcEth, usdHeld, nameOnly, usdFake]);
      expect(body[1]).toEqual({
        chain_id: 1,
        address: usdcEth,
        token_type: 'ERC20',
        symbol: 'USDC',
        name: 'USD Coin',
        logo: 'https://logos.example/usdc.png',
        decimals: 6,
      });
      expect(body[2]).toMatchObject({ logo: null, decimals: null });
    });

    it('a liquid token is found past hundreds of alphabetically earlier look-alikes', async () => {
      const db = api.t.db;
      await insertTokens(
        db,
        Array.from({ length: 450 }, (_, i) => ({
          chainId: 1,
          address: addr('search-lookalike', i),
          standard: 'erc20' as const,
          name: `USD airdrop ${i}`,
          symbol: `USDA${String(i).padStart(3, '0')}`,
          decimals: 18,
        })),
      );
      const { body } = await search('query=usd&limit=3');
      expect(body.map((t) => t.address).slice(0, 2)).toEqual([usdcBase, usdcEth]);
      // Exact symbol matches too, priced or not.
      const exact = await search('query=usdh');
      expect(exact.body.map((t) => t.address)).toEqual([usdHeld]);
    });

    it('chain_ids, limit clamping, address lookup, short and wildcard queries', async () => {
      expect((await search('query=USDC&chain_ids=1')).body.map((t) => t.address)).toEqual([
        usdcEth,
      ]);
      expect((await search('query=usd&limit=2')).body).toHaveLength(2);
      expect((await search('query=usd&limit=0')).body).toHaveLength(1);
      expect((await search('query=usd&limit=999')).body).toHaveLength(50);
      expect((await search(`query=${usdHeld.toUpperCase().replace('0X', '0x')}`)).body).toEqual([
        expect.objectContaining({ address: usdHeld, symbol: 'USDH' }),
      ]);
      expect((await search('query=%20us%20')).body).toEqual([]);
      // LIKE wildcards are literal characters here.
      expect((await search('query=1%25_')).body.map((t) => t.address)).toEqual([pct]);
      expect((await search('query=%25%25%25')).body).toEqual([]);
      expect((await search('query=zzzz')).body).toEqual([]);
    });

    it('400 with the peer error body for a missing query or bad parameter; 401 without a key', async () => {
      for (const query of [
        '',
        'query=',
        'query=%20%20',
        'query=usd&limit=abc',
        'query=usd&chain_ids=ethereum',
      ]) {
        const { res, body } = await search(query);
        expect(res.status, query).toBe(400);
        if (referenceAvailable()) assertMatchesReference('TokenHolders_ErrorResponse', body);
        expect(body).toEqual({ error: { message: expect.any(String), code: 'BAD_REQUEST' } });
      }
      const res = await api.get('/v1/evm/search/tokens?query=usd', {});
      expect(res.status).toBe(401);
    });
  });
}
