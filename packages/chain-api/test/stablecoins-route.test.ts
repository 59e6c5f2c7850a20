import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveChainConfig } from '../src/chains/index.js';
import { startTestApi, type TestApi } from './support/api-harness.js';
import { assertMatchesReference, referenceAvailable } from './support/reference-schemas.js';
import {
  addr,
  insertErc20Balances,
  insertNativeBalances,
  insertPrices,
  insertTokens,
} from './support/seed-store.js';

const chains = [1, 100, 8453].map((id) => resolveChainConfig(id));
const [ethereum, gnosis, base] = chains as [
  (typeof chains)[0],
  (typeof chains)[0],
  (typeof chains)[0],
];
const wallet = addr('stable-wallet');
const other = addr('stable-other-token');
const ethStables = ethereum.stablecoins.slice(0, 3).map((a) => a.toLowerCase());
const baseStable = base.stablecoins[0]!.toLowerCase();

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi({ chains });
  const db = api.t.db;
  await insertTokens(db, [
    ...ethStables.map((address, i) => ({
      chainId: 1,
      address,
      standard: 'erc20' as const,
      name: `Stable ${i}`,
      symbol: `S${i}`,
      decimals: 6,
    })),
    {
      chainId: 8453,
      address: baseStable,
      standard: 'erc20',
      name: 'USDC',
      symbol: 'USDC',
      decimals: 6,
    },
    { chainId: 1, address: other, standard: 'erc20', name: 'Other', symbol: 'O', decimals: 18 },
  ]);
  await insertErc20Balances(db, [
    ...ethStables.map((token, i) => ({
      chainId: 1,
      wallet,
      token,
      amount: String((i + 1) * 1_000_000),
    })),
    { chainId: 8453, wallet, token: baseStable, amount: '2500000' },
    { chainId: 1, wallet, token: other, amount: '5' },
  ]);
  await insertNativeBalances(db, [
    { chainId: 1, wallet, amount: '1000' }, // ETH is not a stablecoin
    { chainId: 100, wallet, amount: '3000000000000000000' },
  ]);
  await insertPrices(db, [
    { chainId: 1, token: ethStables[0]!, priceUsd: 1, poolSize: 1_000_000, lowLiquidity: false },
    { chainId: 100, token: 'native', priceUsd: 1, poolSize: 1_000_000, lowLiquidity: false },
  ]);
});

afterAll(async () => {
  await api?.close();
});

type Body = { balances: Record<string, unknown>[]; next_offset?: string } & Record<string, unknown>;
const get = async (query: string) => {
  const res = await api.get(`/v1/evm/balances/${wallet}/stablecoins${query}`);
  return { res, body: (await res.json()) as Body };
};
const keys = (body: Body) => body.balances.map((b) => `${b.chain_id}:${b.address}`);
const all = [...[...ethStables].sort().map((a) => `1:${a}`), '100:native', `8453:${baseStable}`];

describe('GET /v1/evm/balances/{address}/stablecoins', () => {
  it('lists only stablecoins (ERC20 and stable natives), in balances order', async () => {
    const { res, body } = await get('?chain_ids=1,100,8453');
    expect(res.status).toBe(200);
    if (referenceAvailable()) assertMatchesReference('StablecoinBalancesResponse', body);
    expect(keys(body)).toEqual(all);
    const xdai = body.balances.find((b) => b.address === 'native')!;
    expect(xdai).toMatchObject({ chain: gnosis.name, symbol: 'XDAI', price_usd: 1, value_usd: 3 });
    expect(body.request_time).toBeTypeOf('string');
  });

  it('pages each balance exactly once', async () => {
    const seen: string[] = [];
    let offset: string | undefined;
    let pages = 0;
    do {
      const { body } = await get(
        `?chain_ids=1,100,8453&limit=1${offset ? `&offset=${offset}` : ''}`,
      );
      seen.push(...keys(body));
      offset = body.next_offset;
      pages++;
    } while (offset && pages < 20);
    expect(seen).toEqual(all);
  });

  it('applies the balances filters', async () => {
    expect(keys((await get('?chain_ids=1,100,8453&filters=native')).body)).toEqual(['100:native']);
    expect(keys((await get('?chain_ids=1,100,8453&filters=erc20')).body)).not.toContain(
      '100:native',
    );
    expect(keys((await get('?chain_ids=1,100,8453&exclude_unpriced=true')).body)).toEqual([
      `1:${ethStables[0]}`,
      '100:native',
    ]);
    const unsupported = await get('?chain_ids=1,424242');
    expect(unsupported.body.warnings).toEqual([
      expect.objectContaining({ code: 'UNSUPPORTED_CHAIN_IDS', chain_ids: [424242] }),
    ]);
  });

  it('bad input: JSON {message} 400s; no key: 401', async () => {
    for (const path of [
      '/v1/evm/balances/0x12/stablecoins',
      `/v1/evm/balances/${wallet}/stablecoins?filters=nft`,
      `/v1/evm/balances/${wallet}/stablecoins?limit=0`,
      `/v1/evm/balances/${wallet}/stablecoins?offset=bad`,
      `/v1/evm/balances/${wallet}/stablecoins?exclude_unpriced=maybe`,
    ]) {
      const res = await api.get(path);
      expect(res.status, path).toBe(400);
      expect(await res.json()).toEqual({ message: expect.any(String) });
    }
    const res = await api.get(`/v1/evm/balances/${wallet}/stablecoins`, {});
    expect(res.status).toBe(401);
  });
});
