import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './support/api-harness.js';
import { assertMatchesReference, referenceAvailable } from './support/reference-schemas.js';
import {
  addr,
  insertCollections,
  insertNftHoldings,
  insertNftMetadata,
  insertNftSale,
  insertTokens,
  type SeedHolding,
} from './support/seed-store.js';

const wallet = addr('nft-wallet');
const collector = addr('nft-collector');
const art = addr('art721');
const items = addr('items1155');
const junk = addr('junk721');
const acquired = 1_700_000_000;
const explanations = [
  { feature: 'trade_volume', value: 0, feature_score: 100, feature_weight: 0.25 },
  { feature: 'unique_buyers', value: 0, feature_score: 100, feature_weight: 0.25 },
  { feature: 'unique_sellers', value: 0, feature_score: 100, feature_weight: 0.25 },
  { feature: 'externally_flagged', value: true, feature_score: 100, feature_weight: 0.25 },
];

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
  const db = api.t.db;
  await insertTokens(db, [
    {
      chainId: 1,
      address: art,
      standard: 'erc721',
      name: 'Art Blocks',
      symbol: 'ART',
      decimals: null,
    },
    {
      chainId: 1,
      address: items,
      standard: 'erc1155',
      name: 'Items',
      symbol: 'ITM',
      decimals: null,
    },
  ]);
  await insertCollections(db, [
    {
      chainId: 1,
      contract: art,
      name: 'Art Blocks',
      symbol: 'ART',
      spamScore: 0,
      isSpam: false,
      explanations: explanations.map((e) => ({ ...e, value: 10, feature_score: 0 })),
    },
    {
      chainId: 1,
      contract: junk,
      name: 'Claim your airdrop',
      symbol: 'CLAIM',
      spamScore: 100,
      isSpam: true,
      explanations,
    },
  ]);
  await insertNftHoldings(db, [
    {
      chainId: 1,
      wallet,
      contract: art,
      tokenId: '1',
      standard: 'erc721',
      balance: '1',
      lastAcquired: acquired,
    },
    {
      chainId: 1,
      wallet,
      contract: art,
      tokenId: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
      standard: 'erc721',
      balance: '1',
      lastAcquired: acquired + 60,
    },
    {
      chainId: 1,
      wallet,
      contract: items,
      tokenId: '7',
      standard: 'erc1155',
      balance: '12',
      lastAcquired: acquired + 120,
    },
    {
      chainId: 1,
      wallet,
      contract: junk,
      tokenId: '3',
      standard: 'erc721',
      balance: '1',
      lastAcquired: acquired + 180,
    },
    {
      chainId: 31337,
      wallet,
      contract: art,
      tokenId: '2',
      standard: 'erc721',
      balance: '1',
      lastAcquired: acquired + 240,
    },
  ]);
  await insertNftMetadata(db, [
    {
      chainId: 1,
      contract: art,
      tokenId: '1',
      standard: 'erc721',
      uri: 'ipfs://QmArt/1',
      name: 'Art #1',
      description: 'The first',
      imageUrl: 'https://ipfs.example/ipfs/QmImg/1.png',
      attributes: [
        { key: 'Color', value: 'Red' },
        { key: 'Level', value: '3' },
      ],
    },
    {
      chainId: 1,
      contract: items,
      tokenId: '7',
      standard: 'erc1155',
      uri: null,
      name: null,
      status: 'pending',
    },
  ]);
  await insertNftSale(db, {
    chainId: 1,
    contract: art,
    tokenId: '1',
    blockNumber: 10,
    logIndex: 1,
    price: '1000000000000000000',
  });
  await insertNftSale(db, {
    chainId: 1,
    contract: art,
    tokenId: '1',
    blockNumber: 20,
    logIndex: 0,
    price: '2500000000000000000',
  });
  // 600 NFTs for the collector, to page through.
  const many: SeedHolding[] = Array.from({ length: 600 }, (_, i) => ({
    chainId: 1,
    wallet: collector,
    contract: art,
    tokenId: String(1000 + i),
    standard: 'erc721',
    balance: '1',
    lastAcquired: acquired + i,
  }));
  await insertNftHoldings(db, many);
});

afterAll(async () => {
  await api?.close();
});

type Body = Record<string, unknown> & { entries: Record<string, unknown>[] };
const json = async (res: Response) => (await res.json()) as Body;
const path = (query = '', who = wallet) => `/v1/evm/collectibles/${who}${query}`;

describe('GET /v1/evm/collectibles/{address}', () => {
  it('lists holdings with metadata and last sale, spam hidden by default', async () => {
    const res = await api.get(path());
    expect(res.status).toBe(200);
    const body = await json(res);
    if (referenceAvailable()) assertMatchesReference('CollectiblesResponse', body);
    expect(body.address).toBe(wallet);
    expect(body.entries.map((e) => `${e.chain_id}:${e.contract_address}:${e.token_id}`)).toEqual([
      `1:${art}:1`,
      `1:${art}:115792089237316195423570985008687907853269984665640564039457584007913129639935`,
      `1:${items}:7`,
      `31337:${art}:2`,
    ]);
    expect(body.entries[0]).toEqual({
      contract_address: art,
      token_standard: 'ERC721',
      token_id: '1',
      chain: 'ethereum',
      chain_id: 1,
      name: 'Art #1',
      symbol: 'ART',
      description: 'The first',
      image_url: 'https://ipfs.example/ipfs/QmImg/1.png',
      last_sale_price: '2500000000000000000',
      metadata: {
        uri: 'ipfs://QmArt/1',
        attributes: [
          { key: 'Color', value: 'Red' },
          { key: 'Level', value: '3' },
        ],
      },
      balance: '1',
      last_acquired: '2023-11-14T22:13:20Z',
      is_spam: false,
    });
    // Metadata still pending: what the store knows (collection name), no metadata object.
    expect(body.entries[2]).toEqual({
      contract_address: items,
      token_standard: 'ERC1155',
      token_id: '7',
      chain: 'ethereum',
      chain_id: 1,
      name: 'Items',
      symbol: 'ITM',
      balance: '12',
      last_acquired: '2023-11-14T22:15:20Z',
      is_spam: false,
    });
    expect(body.next_offset).toBeUndefined();
    expect(Date.parse(body.request_time as string)).toBeLessThanOrEqual(
      Date.parse(body.response_time as string),
    );
  });

  it('filter_spam=false shows spam; show_spam_scores adds score and explanations', async () => {
    const all = await json(await api.get(path('?chain_ids=1&filter_spam=false')));
    expect(all.entries).toHaveLength(4);
    const spam = all.entries.find((e) => e.contract_address === junk)!;
    expect(spam).toMatchObject({ is_spam: true, name: 'Claim your airdrop' });
    expect(spam).not.toHaveProperty('spam_score');
    const scored = await json(
      await api.get(path('?chain_ids=1&filter_spam=false&show_spam_scores=true')),
    );
    if (referenceAvailable()) assertMatchesReference('CollectiblesResponse', scored);
    expect(scored.entries.find((e) => e.contract_address === junk)).toMatchObject({
      spam_score: 100,
      explanations,
    });
    expect(scored.entries.find((e) => e.contract_address === art)).toMatchObject({ spam_score: 0 });
    // No collection row yet: no score, not spam.
    expect(scored.entries.find((e) => e.contract_address === items)).not.toHaveProperty(
      'spam_score',
    );
  });

  it('bare flags: filter_spam and show_spam_scores without a value read as true', async () => {
    const hidden = await json(await api.get(path('?chain_ids=1&filter_spam=false')));
    expect(hidden.entries.some((e) => e.contract_address === junk)).toBe(true);
    for (const form of ['?chain_ids=1&filter_spam', '?filter_spam=&chain_ids=1']) {
      const body = await json(await api.get(path(form)));
      expect(
        body.entries.some((e) => e.contract_address === junk),
        form,
      ).toBe(false);
    }
    for (const form of [
      '?chain_ids=1&filter_spam=false&show_spam_scores',
      '?show_spam_scores=&filter_spam=0&chain_ids=1',
    ]) {
      const body = await json(await api.get(path(form)));
      expect(
        body.entries.find((e) => e.contract_address === junk),
        form,
      ).toMatchObject({
        spam_score: 100,
      });
    }
  });

  it('limit: default 250, clamps above 2500, pages through 600 exactly once', async () => {
    const def = await json(await api.get(path('', collector)));
    expect(def.entries).toHaveLength(250);
    const big = await json(await api.get(path('?limit=100000', collector)));
    expect(big.entries).toHaveLength(600);
    expect(big.next_offset).toBeUndefined();
    const seen: string[] = [];
    let offset: string | undefined;
    do {
      const body = await json(
        await api.get(path(`?limit=77${offset ? `&offset=${offset}` : ''}`, collector)),
      );
      seen.push(...body.entries.map((e) => e.token_id as string));
      offset = body.next_offset as string | undefined;
    } while (offset);
    expect(seen).toEqual(Array.from({ length: 600 }, (_, i) => String(1000 + i)));
  });

  it('a cursor from filter_spam=true is refused with filter_spam=false', async () => {
    const first = await json(await api.get(path('?limit=10', collector)));
    const res = await api.get(
      path(`?limit=10&filter_spam=false&offset=${first.next_offset}`, collector),
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: expect.stringContaining("'offset'") });
  });

  it('400 {error} naming the parameter', async () => {
    for (const [url, name] of [
      ['/v1/evm/collectibles/vitalik.eth', 'address'],
      [path('?limit=0'), 'limit'],
      [path('?limit=2.5'), 'limit'],
      [path('?filter_spam=maybe'), 'filter_spam'],
      [path('?show_spam_scores=TRUE1'), 'show_spam_scores'],
      [path('?chain_ids=1,polygon'), 'chain_ids'],
      [path('?offset=%00'), 'offset'],
    ] as const) {
      const res = await api.get(url);
      expect(res.status, url).toBe(400);
      const body = (await res.json()) as { error: string };
      expect(Object.keys(body), url).toEqual(['error']);
      expect(body.error, url).toContain(`'${name}'`);
    }
  });

  it('unsupported chains warn; a chain still indexing warns CHAINS_NOT_READY', async () => {
    const body = await json(await api.get(path('?chain_ids=1,5')));
    expect(body.warnings).toEqual([
      expect.objectContaining({ code: 'UNSUPPORTED_CHAIN_IDS', chain_ids: [5] }),
    ]);
    api.setReady(1, false);
    try {
      const notReady = await json(await api.get(path('?chain_ids=1')));
      expect(notReady.warnings).toEqual([
        expect.objectContaining({ code: 'CHAINS_NOT_READY', chain_ids: [1] }),
      ]);
      expect(notReady.entries.length).toBeGreaterThan(0);
    } finally {
      api.setReady(1, true);
    }
  });
});
