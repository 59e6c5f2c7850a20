import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './support/api-harness.js';
import { assertMatchesReference, referenceAvailable } from './support/reference-schemas.js';
import {
  addr,
  insertActivity,
  insertPrices,
  insertTokens,
  type SeedActivity,
  txHash,
} from './support/seed-store.js';

const wallet = addr('wallet', 1);
const busy = addr('busy', 1);
const usdc = addr('usdc');
const weth = addr('weth');
const nft = addr('nft721');
const multi = addr('nft1155');
const other = addr('other');
const t0 = 1_700_000_000;

let api: TestApi;
let n = 0;
const row = (r: Partial<SeedActivity> & Pick<SeedActivity, 'type' | 'assetType'>): SeedActivity => {
  n++;
  return {
    chainId: 1,
    wallet,
    blockTime: t0 + n * 12,
    blockNumber: 1000 + n,
    txIndex: 0,
    logIndex: n,
    txHash: txHash(n),
    ...r,
  };
};

const seeded: SeedActivity[] = [
  row({
    type: 'receive',
    assetType: 'erc20',
    tokenAddress: usdc,
    from: other,
    to: wallet,
    value: '2500000',
  }),
  row({
    type: 'send',
    assetType: 'native',
    from: wallet,
    to: other,
    value: '1000000000000000000',
    logIndex: -1,
    subIndex: 1,
  }),
  row({
    type: 'approve',
    assetType: 'erc20',
    tokenAddress: usdc,
    from: wallet,
    to: other,
    value: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
  }),
  row({
    type: 'swap',
    assetType: 'erc20',
    from: wallet,
    to: wallet,
    subIndex: 1000,
    extra: {
      from_token_address: usdc,
      from_token_value: '1000000',
      to_token_address: weth,
      to_token_value: '500000000000000',
      dex: 'uniswap_v2',
      pools: [],
    },
  }),
  row({
    type: 'swap',
    assetType: 'erc20',
    from: wallet,
    to: wallet,
    subIndex: 1000,
    extra: {
      from_token_address: 'native',
      from_token_value: '7',
      to_token_address: usdc,
      to_token_value: '21',
      pools: [],
    },
  }),
  row({
    type: 'call',
    assetType: null,
    from: wallet,
    to: other,
    value: '0',
    logIndex: -1,
    extra: {
      function: {
        signature: 'setName(string)',
        name: 'setName',
        inputs: [{ name: 'name', type: 'string', value: 'alice' }],
      },
      selector: '0xc47f0027',
      status: 1,
    },
  }),
  row({
    type: 'mint',
    assetType: 'erc721',
    tokenAddress: nft,
    from: '0x0000000000000000000000000000000000000000',
    to: wallet,
    value: '1',
    tokenId: '42',
  }),
  row({
    type: 'receive',
    assetType: 'erc1155',
    tokenAddress: multi,
    from: other,
    to: wallet,
    value: '5',
    tokenId: '7',
  }),
  row({
    type: 'burn',
    assetType: 'erc20',
    tokenAddress: usdc,
    from: wallet,
    to: '0x0000000000000000000000000000000000000000',
    value: '1',
  }),
  row({
    type: 'transfer',
    assetType: 'native',
    from: wallet,
    to: wallet,
    value: '5',
    logIndex: -1,
    subIndex: 1,
  }),
  row({
    chainId: 8453,
    type: 'receive',
    assetType: 'erc20',
    tokenAddress: usdc,
    from: other,
    to: wallet,
    value: '7',
  }),
  row({
    chainId: 31337,
    type: 'receive',
    assetType: 'native',
    from: other,
    to: wallet,
    value: '9',
    logIndex: -1,
    subIndex: 1,
  }),
];

beforeAll(async () => {
  api = await startTestApi({
    pricing: {
      // History knows ETH at 2,900 USD at every block time; USDC only through its current row.
      pricesAt: async (items) => items.map((item) => (item.token === 'native' ? 2900 : null)),
      tokenLinks: () => undefined,
    },
  });
  await insertPrices(api.t.db, [
    { chainId: 1, token: 'native', priceUsd: 3000, poolSize: 9_000_000, lowLiquidity: false },
    { chainId: 1, token: usdc, priceUsd: 1, poolSize: 2_000_000, lowLiquidity: false },
  ]);
  await insertTokens(api.t.db, [
    { chainId: 1, address: usdc, standard: 'erc20', name: 'USD Coin', symbol: 'USDC', decimals: 6 },
    {
      chainId: 8453,
      address: usdc,
      standard: 'erc20',
      name: 'USD Coin',
      symbol: 'USDC',
      decimals: 6,
    },
    {
      chainId: 1,
      address: weth,
      standard: 'erc20',
      name: 'Wrapped Ether',
      symbol: 'WETH',
      decimals: 18,
    },
    { chainId: 1, address: nft, standard: 'erc721', name: 'Punks', symbol: 'PNK', decimals: null },
  ]);
  await insertActivity(api.t.db, seeded);
  // 250 rows for the busy wallet, several per block, to page through.
  const many: SeedActivity[] = [];
  for (let i = 0; i < 250; i++) {
    many.push({
      chainId: i % 3 === 0 ? 8453 : 1,
      wallet: busy,
      blockTime: t0 + Math.floor(i / 4) * 12,
      blockNumber: 5000 + Math.floor(i / 4),
      txIndex: i % 4,
      logIndex: i % 2,
      txHash: txHash(100_000 + i),
      type: 'receive',
      assetType: 'erc20',
      tokenAddress: usdc,
      from: other,
      to: busy,
      value: String(i),
    });
  }
  await insertActivity(api.t.db, many);
});

afterAll(async () => {
  await api?.close();
});

const json = async (res: Response) =>
  (await res.json()) as Record<string, unknown> & { activity: Record<string, unknown>[] };
const path = (query = '', who = wallet) => `/v1/evm/activity/${who}${query}`;

describe('GET /v1/evm/activity/{address}', () => {
  it('needs a key: 401 {error} without one or with a wrong one; X-Sim-Api-Key and Bearer work', async () => {
    const missing = await api.get(path(), {});
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ error: expect.stringMatching(/API Key/) });
    const wrong = await api.get(path(), { 'x-sim-api-key': 'sluice_wrong' });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: 'invalid API Key' });
    const bearer = await api.get(path('?chain_ids=1'), { authorization: `Bearer ${api.key}` });
    expect(bearer.status).toBe(200);
  });

  it('returns every type newest first across the default chains, shaped like the peer', async () => {
    const res = await api.get(path('?chain_ids=1,8453,31337'));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const body = await json(res);
    const expected = [...seeded].reverse();
    expect(body.activity.map((a) => a.tx_hash)).toEqual(expected.map((r) => r.txHash));
    expect(body.next_offset).toBeUndefined();
    if (referenceAvailable()) assertMatchesReference('ActivityResponse', body);

    const byType = new Map(
      body.activity.map((a) => [`${a.chain_id}:${a.type}:${a.asset_type}`, a]),
    );
    expect(byType.get('1:receive:erc20')).toMatchObject({
      chain_id: 1,
      block_number: 1001,
      block_time: '2023-11-14T22:13:32+00:00',
      asset_type: 'erc20',
      token_address: usdc,
      from: other,
      to: wallet,
      value: '2500000',
      value_usd: 2.5,
      token_metadata: {
        symbol: 'USDC',
        decimals: 6,
        name: 'USD Coin',
        price_usd: 1,
        pool_size: 2_000_000,
      },
    });
    // Native: the price at the block time (2,900), not the current one (3,000).
    expect(byType.get('1:send:native')).toMatchObject({
      value_usd: 2900,
      token_metadata: { symbol: 'ETH', price_usd: 2900, pool_size: 9_000_000 },
    });
    expect(byType.get('1:mint:erc721')).not.toHaveProperty('value_usd');
    expect(byType.get('1:swap:erc20')).not.toHaveProperty('value_usd');
    // No price row on Base: no price fields at all (absent, never zero or null).
    expect(byType.get('8453:receive:erc20')).not.toHaveProperty('value_usd');
    expect(byType.get('8453:receive:erc20')!.token_metadata).not.toHaveProperty('price_usd');
    expect(byType.get('1:approve:erc20')).toMatchObject({ spender: other });
    const swaps = body.activity.filter((a) => a.type === 'swap');
    expect(swaps[0]).toMatchObject({
      from_token_address: 'native',
      from_token_metadata: { symbol: 'ETH', decimals: 18, name: 'Ether' },
      to_token_metadata: { symbol: 'USDC', decimals: 6 },
    });
    expect(swaps[1]).toMatchObject({
      from_token_address: usdc,
      from_token_value: '1000000',
      from_token_metadata: { symbol: 'USDC', decimals: 6 },
      to_token_address: weth,
      to_token_value: '500000000000000',
      to_token_metadata: { symbol: 'WETH', decimals: 18 },
    });
    const call = byType.get('1:call:undefined');
    expect(call).toMatchObject({
      function: {
        signature: 'setName(string)',
        name: 'setName',
        inputs: [{ name: 'name', type: 'string', value: 'alice' }],
      },
    });
    expect(call).not.toHaveProperty('asset_type');
    expect(byType.get('1:mint:erc721')).toMatchObject({
      id: '42',
      token_metadata: { symbol: 'PNK', standard: 'erc721' },
    });
    expect(byType.get('1:receive:erc1155')).toMatchObject({ id: '7', value: '5' });
    expect(byType.get('1:send:native')).toMatchObject({
      token_metadata: { symbol: 'ETH', decimals: 18 },
    });
    expect(byType.get('1:send:native')).not.toHaveProperty('token_address');
  });

  it('omitted chain_ids means the default tag (the three test chains carry it)', async () => {
    const body = await json(await api.get(path()));
    expect(new Set(body.activity.map((a) => a.chain_id))).toEqual(new Set([1, 8453, 31337]));
  });

  it('token_address keeps only that token and drops swaps, calls and native', async () => {
    const body = await json(
      await api.get(path(`?chain_ids=1&token_address=${usdc.toUpperCase().replace('0X', '0x')}`)),
    );
    expect(body.activity.map((a) => a.type)).toEqual(['burn', 'approve', 'receive']);
    const two = await json(await api.get(path(`?chain_ids=1&token_address=${usdc},${nft}`)));
    expect(two.activity.map((a) => a.type)).toEqual(['burn', 'mint', 'approve', 'receive']);
  });

  it('activity_type and asset_type filter; asset_type excludes calls', async () => {
    const sends = await json(await api.get(path('?chain_ids=1&activity_type=send,receive')));
    expect(sends.activity.map((a) => a.type)).toEqual(['receive', 'send', 'receive']);
    const natives = await json(await api.get(path('?asset_type=native')));
    expect(natives.activity.map((a) => `${a.chain_id}:${a.type}`)).toEqual([
      '31337:receive',
      '1:transfer',
      '1:send',
    ]);
    const assets = await json(
      await api.get(path('?chain_ids=1&asset_type=erc20,erc721,erc1155,native')),
    );
    expect(assets.activity.some((a) => a.type === 'call')).toBe(false);
    const calls = await json(await api.get(path('?chain_ids=1&activity_type=call')));
    expect(calls.activity.map((a) => a.type)).toEqual(['call']);
  });

  it('unsupported chain ids give a warning and results for the rest', async () => {
    const body = await json(await api.get(path('?chain_ids=8453,9999')));
    expect(body.activity).toHaveLength(1);
    expect(body.warnings).toEqual([
      expect.objectContaining({
        code: 'UNSUPPORTED_CHAIN_IDS',
        chain_ids: [9999],
        docs_url: expect.stringContaining('/v1/evm/supported-chains'),
      }),
    ]);
    if (referenceAvailable()) assertMatchesReference('ActivityResponse', body);
  });

  it('limit: default 20, clamps above 100, pages each row exactly once in order', async () => {
    expect((await json(await api.get(path('', busy)))).activity).toHaveLength(20);
    const big = await json(await api.get(path('?limit=1000', busy)));
    expect(big.activity).toHaveLength(100);
    expect(typeof big.next_offset).toBe('string');

    const all = await json(await api.get(path('?limit=100', busy)));
    const seen: string[] = [];
    let offset: string | undefined;
    let pages = 0;
    do {
      const body = await json(
        await api.get(path(`?limit=7${offset ? `&offset=${offset}` : ''}`, busy)),
      );
      seen.push(...body.activity.map((a) => a.value as string));
      offset = body.next_offset as string | undefined;
      pages++;
    } while (offset);
    expect(pages).toBe(Math.ceil(250 / 7));
    expect(seen).toHaveLength(250);
    expect(new Set(seen).size).toBe(250);
    expect(seen.slice(0, 100)).toEqual(all.activity.map((a) => a.value));
  });

  it('rejects tampered cursors and cursors from another query with a plain-text 400', async () => {
    const first = await json(await api.get(path('?limit=5', busy)));
    const cursor = first.next_offset as string;
    const tampered = cursor.slice(0, 3) + (cursor[3] === 'A' ? 'B' : 'A') + cursor.slice(4);
    for (const [query, who] of [
      [`?limit=5&offset=${tampered}`, busy],
      [`?limit=5&offset=${cursor}&chain_ids=1`, busy],
      [`?limit=5&offset=${cursor}`, wallet],
      ['?offset=not-a-cursor', busy],
    ] as const) {
      const res = await api.get(path(query, who));
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).toMatch(/'offset'/);
    }
  });

  it('400s are plain text naming the parameter', async () => {
    const cases: [string, string][] = [
      ['/v1/evm/activity/0x123', 'address'],
      [path('?limit=0'), 'limit'],
      [path('?limit=abc'), 'limit'],
      [path('?chain_ids=ethereum'), 'chain_ids'],
      [path('?activity_type=sent'), 'activity_type'],
      [path('?asset_type=erc777'), 'asset_type'],
      [path('?token_address=0xnope'), 'token_address'],
      [path('?limit=1&limit=2'), 'limit'],
    ];
    for (const [url, name] of cases) {
      const res = await api.get(url);
      expect(res.status, url).toBe(400);
      expect(res.headers.get('content-type'), url).toMatch(/^text\/plain/);
      expect(await res.text(), url).toContain(`'${name}'`);
    }
  });

  it('a chain still backfilling is answered with a CHAINS_NOT_READY warning', async () => {
    api.setReady(8453, false);
    try {
      const body = await json(await api.get(path('?chain_ids=8453')));
      expect(body.warnings).toEqual([
        expect.objectContaining({ code: 'CHAINS_NOT_READY', chain_ids: [8453] }),
      ]);
    } finally {
      api.setReady(8453, true);
    }
  });

  it('ETag: an unchanged page answers 304', async () => {
    const res = await api.get(path('?chain_ids=1'));
    const etag = res.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await api.get(path('?chain_ids=1'), {
      'x-sim-api-key': api.key,
      'if-none-match': etag!,
    });
    expect(again.status).toBe(304);
  });

  it('compresses large answers', async () => {
    const res = await fetch(`${api.url}${path('?limit=100', busy)}`, {
      headers: { 'x-sim-api-key': api.key, 'accept-encoding': 'br' },
    });
    expect(res.headers.get('content-encoding')).toBe('br');
    expect((await res.json()).activity).toHaveLength(100);
  });
});
