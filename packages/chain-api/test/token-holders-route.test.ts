import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './support/api-harness.js';
import { assertMatchesReference, referenceAvailable } from './support/reference-schemas.js';
import {
  addr,
  insertActivity,
  insertErc20Balances,
  insertNftHoldings,
  insertTokens,
  txHash,
} from './support/seed-store.js';

const token = addr('holders-token');
const nft = addr('holders-nft');
const unheld = addr('holders-unheld');
const alice = addr('holder-alice');
const bob = addr('holder-bob');
const t0 = 1_700_000_000;
// 1,203 holders: many share a balance (ties broken by wallet), plus zero balances never listed.
const balances = Array.from({ length: 1203 }, (_, i) => ({
  wallet: addr('holder', i),
  amount: String(BigInt((i * 7919) % 50) * 10n ** 20n + 1n),
}));
const expectedOrder = [...balances].sort((a, b) => {
  const diff = BigInt(b.amount) - BigInt(a.amount);
  return diff !== 0n ? (diff > 0n ? 1 : -1) : a.wallet < b.wallet ? -1 : 1;
});

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
  const db = api.t.db;
  await insertTokens(db, [
    { chainId: 1, address: token, standard: 'erc20', name: 'Held', symbol: 'HLD', decimals: 18 },
    { chainId: 1, address: nft, standard: 'erc721', name: 'Apes', symbol: 'APE', decimals: null },
    { chainId: 1, address: unheld, standard: 'erc20', name: 'None', symbol: 'N', decimals: 18 },
  ]);
  const top = expectedOrder[0]!.wallet;
  const second = expectedOrder[1]!.wallet;
  // The writer keeps these facts from the transfers it indexes (the feed rows below show them).
  const facts = new Map([
    [top, { firstAcquired: t0, hasSent: true }],
    [second, { firstAcquired: t0 + 50, hasSent: false }],
  ]);
  await insertErc20Balances(db, [
    ...balances.map((b) => ({
      chainId: 1,
      wallet: b.wallet,
      token,
      amount: b.amount,
      ...facts.get(b.wallet),
    })),
    { chainId: 1, wallet: addr('holder-zero'), token, amount: '0' },
    // Same wallet, another chain: not a holder on chain 1.
    { chainId: 8453, wallet: addr('holder-base'), token, amount: '999999999999999999999999999' },
  ]);
  await insertActivity(db, [
    // The top holder received twice (first receipt counts) and sent once.
    ...[0, 1].map((k) => ({
      chainId: 1,
      wallet: top,
      blockTime: t0 + k * 100,
      blockNumber: 10 + k,
      txIndex: 0,
      logIndex: 0,
      txHash: txHash(10 + k),
      type: 'receive',
      assetType: 'erc20',
      tokenAddress: token,
      value: '1',
    })),
    {
      chainId: 1,
      wallet: top,
      blockTime: t0 + 500,
      blockNumber: 20,
      txIndex: 0,
      logIndex: 0,
      txHash: txHash(20),
      type: 'send',
      assetType: 'erc20',
      tokenAddress: token,
      value: '1',
    },
    // Another token's send does not count for this one.
    {
      chainId: 1,
      wallet: expectedOrder[1]!.wallet,
      blockTime: t0 + 50,
      blockNumber: 9,
      txIndex: 0,
      logIndex: 0,
      txHash: txHash(9),
      type: 'mint',
      assetType: 'erc20',
      tokenAddress: token,
      value: '1',
    },
    {
      chainId: 1,
      wallet: expectedOrder[1]!.wallet,
      blockTime: t0 + 60,
      blockNumber: 9,
      txIndex: 1,
      logIndex: 0,
      txHash: txHash(91),
      type: 'send',
      assetType: 'erc20',
      tokenAddress: unheld,
      value: '1',
    },
  ]);
  await insertNftHoldings(db, [
    ...[1, 2, 3].map((id) => ({
      chainId: 1,
      wallet: alice,
      contract: nft,
      tokenId: String(id),
      standard: 'erc721' as const,
      balance: '1',
      lastAcquired: t0 + id,
    })),
    {
      chainId: 1,
      wallet: bob,
      contract: nft,
      tokenId: '9',
      standard: 'erc721',
      balance: '1',
      lastAcquired: t0 + 9,
    },
  ]);
});

afterAll(async () => {
  await api?.close();
});

type Holder = { wallet_address: string; balance: string; first_acquired?: string };
type Body = { holders: Holder[]; next_offset?: string } & Record<string, unknown>;
const get = async (path: string) => {
  const res = await api.get(`/v1/evm/token-holders/${path}`);
  return { res, body: (await res.json()) as Body };
};

describe('GET /v1/evm/token-holders/{chain_id}/{address}', () => {
  it('pages every holder exactly once, largest balance first, ties by wallet', async () => {
    const seen: Holder[] = [];
    let offset: string | undefined;
    let pages = 0;
    do {
      const { res, body } = await get(`1/${token}?limit=250${offset ? `&offset=${offset}` : ''}`);
      expect(res.status).toBe(200);
      if (referenceAvailable()) assertMatchesReference('TokenHoldersResponse', body);
      expect(body.token_address).toBe(token);
      expect(body.chain_id).toBe(1);
      seen.push(...body.holders);
      offset = body.next_offset;
      pages++;
    } while (offset && pages < 20);
    expect(pages).toBe(5);
    expect(seen.map((h) => [h.wallet_address, h.balance])).toEqual(
      expectedOrder.map((b) => [b.wallet, b.amount]),
    );
  });

  it('default and maximum page size is 500; address case does not matter', async () => {
    const { body } = await get(`1/${token.toUpperCase().replace('0X', '0x')}`);
    expect(body.holders).toHaveLength(500);
    const big = await get(`1/${token}?limit=100000`);
    expect(big.body.holders).toHaveLength(500);
  });

  it('first_acquired is the first receipt; has_initiated_transfer counts only this token', async () => {
    const { body } = await get(`1/${token}?limit=3`);
    const [top, second, third] = body.holders;
    expect(top).toEqual({
      wallet_address: expectedOrder[0]!.wallet,
      balance: expectedOrder[0]!.amount,
      first_acquired: '2023-11-14T22:13:20+00:00',
      has_initiated_transfer: true,
    });
    expect(second).toMatchObject({ first_acquired: '2023-11-14T22:14:10+00:00' });
    expect(second).toMatchObject({ has_initiated_transfer: false });
    // No stored receipt: the field is omitted rather than invented.
    expect(third!.first_acquired).toBeUndefined();
  });

  it('ranks an ERC721 collection by items held', async () => {
    const { res, body } = await get(`1/${nft}`);
    expect(res.status).toBe(200);
    if (referenceAvailable()) assertMatchesReference('TokenHoldersResponse', body);
    expect(body.holders).toEqual([
      {
        wallet_address: alice,
        balance: '3',
        first_acquired: '2023-11-14T22:13:21+00:00',
        has_initiated_transfer: false,
      },
      {
        wallet_address: bob,
        balance: '1',
        first_acquired: '2023-11-14T22:13:29+00:00',
        has_initiated_transfer: false,
      },
    ]);
    const page = await get(`1/${nft}?limit=1`);
    const rest = await get(`1/${nft}?limit=1&offset=${page.body.next_offset}`);
    expect(rest.body.holders.map((h) => h.wallet_address)).toEqual([bob]);
    expect(rest.body.next_offset).toBeUndefined();
  });

  it('a known token without holders answers an empty list', async () => {
    const { res, body } = await get(`1/${unheld}`);
    expect(res.status).toBe(200);
    expect(body.holders).toEqual([]);
  });

  it('404 for an unknown token or chain, 400 for bad parameters, peer error bodies', async () => {
    const cases: [string, number][] = [
      [`1/${addr('never-seen')}`, 404],
      [`999999/${token}`, 404],
      [`8453/${token}`, 404],
      [`base/${token}`, 400],
      ['1/0x1234', 400],
      [`1/${token}?limit=0`, 400],
      [`1/${token}?limit=-5`, 400],
      [`1/${token}?offset=nope`, 400],
    ];
    for (const [path, status] of cases) {
      const { res, body } = await get(path);
      expect(res.status, path).toBe(status);
      if (referenceAvailable()) assertMatchesReference('TokenHolders_ErrorResponse', body);
      expect((body as unknown as { error: { code: string } }).error.code).toBe(
        status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST',
      );
    }
    // A cursor of another token is refused.
    const { body } = await get(`1/${token}?limit=1`);
    const other = await get(`1/${nft}?offset=${body.next_offset}`);
    expect(other.res.status).toBe(400);
  });

  it('requires an API key (gateway error body)', async () => {
    const res = await api.get(`/v1/evm/token-holders/1/${token}`, {});
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: expect.any(String) });
  });
});
