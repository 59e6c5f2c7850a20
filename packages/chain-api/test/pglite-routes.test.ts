import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './support/api-harness.js';
import { assertMatchesReference, referenceAvailable } from './support/reference-schemas.js';
import { insertBlocks } from './support/seed-chain.js';
import {
  addr,
  insertActivity,
  insertErc20Balances,
  insertNativeBalances,
  insertNftHoldings,
  insertPrices,
  insertTokens,
  setCheckpoint,
  txHash,
} from './support/seed-store.js';

/** The same SQL on embedded PGlite (the `npm start` default): every endpoint and its cursors. */

const wallet = addr('pglite-wallet');
const token = addr('pglite-token');
let api: TestApi;

beforeAll(async () => {
  api = await startTestApi({ kind: 'pglite' });
  const db = api.t.db;
  await insertTokens(db, [
    { chainId: 1, address: token, standard: 'erc20', name: 'Lite', symbol: 'LT', decimals: 6 },
  ]);
  await insertPrices(db, [
    { chainId: 1, token, priceUsd: 2, poolSize: 20_000, lowLiquidity: false },
  ]);
  await insertNativeBalances(db, [{ chainId: 1, wallet, amount: '7' }]);
  await insertErc20Balances(db, [{ chainId: 1, wallet, token, amount: '3000000' }]);
  await insertActivity(
    db,
    Array.from({ length: 25 }, (_, i) => ({
      chainId: 1,
      wallet,
      blockTime: 1_700_000_000 + i,
      blockNumber: 10 + i,
      txIndex: 0,
      logIndex: 0,
      txHash: txHash(i),
      type: 'receive',
      assetType: 'erc20',
      tokenAddress: token,
      from: addr('x'),
      to: wallet,
      value: String(i),
    })),
  );
  await insertNftHoldings(
    db,
    Array.from({ length: 5 }, (_, i) => ({
      chainId: 1,
      wallet,
      contract: addr('pglite-nft'),
      tokenId: String(i),
      standard: 'erc721' as const,
      balance: '1',
      lastAcquired: 1_700_000_000,
    })),
  );
});

afterAll(async () => {
  await api?.close();
});

describe('history on PGlite', () => {
  it('balances at a past block and the portfolio series', async () => {
    const db = api.t.db;
    await insertBlocks(
      db,
      Array.from({ length: 25 }, (_, i) => ({
        chainId: 1,
        number: 10 + i,
        time: 1_700_000_000 + i,
      })),
    );
    await setCheckpoint(db, 1, { indexedBlock: 34, backfillDone: true });
    const res = await api.get(`/v1/evm/balances/${wallet}?chain_ids=1&block_number=20`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { balances: { address: string; amount: string }[] };
    // 3,000,000 now, minus the receipts of blocks 21..34 (values 11..24).
    expect(body.balances.map((b) => [b.address, b.amount])).toEqual([
      ['native', '7'],
      [token, String(3_000_000 - 245)],
    ]);
    const portfolio = await api.get(`/v1/evm/portfolio/${wallet}?chain_ids=1&days=2`);
    expect(portfolio.status).toBe(200);
  });
});

describe('routes on PGlite', () => {
  it('activity pages through with cursors', async () => {
    const values: string[] = [];
    let offset: string | undefined;
    do {
      const res = await api.get(
        `/v1/evm/activity/${wallet}?chain_ids=1&limit=10${offset ? `&offset=${offset}` : ''}`,
      );
      const body = (await res.json()) as { activity: { value: string }[]; next_offset?: string };
      if (referenceAvailable()) assertMatchesReference('ActivityResponse', body);
      values.push(...body.activity.map((a) => a.value));
      offset = body.next_offset;
    } while (offset);
    expect(values).toEqual(Array.from({ length: 25 }, (_, i) => String(24 - i)));
  });

  it('balances, token balance and collectibles answer', async () => {
    const balances = (await (
      await api.get(`/v1/evm/balances/${wallet}?chain_ids=1&limit=1`)
    ).json()) as {
      balances: { address: string }[];
      next_offset: string;
    };
    expect(balances.balances.map((b) => b.address)).toEqual(['native']);
    const second = (await (
      await api.get(`/v1/evm/balances/${wallet}?chain_ids=1&limit=1&offset=${balances.next_offset}`)
    ).json()) as {
      balances: Record<string, unknown>[];
    };
    expect(second.balances).toEqual([
      expect.objectContaining({ address: token, price_usd: 2, value_usd: 6 }),
    ]);
    if (referenceAvailable()) assertMatchesReference('BalancesResponse', second);
    const single = await api.get(`/v1/evm/balances/${wallet}/token/${token}?chain_ids=1`);
    expect(single.status).toBe(200);
    const nfts = (await (
      await api.get(`/v1/evm/collectibles/${wallet}?chain_ids=1&limit=2`)
    ).json()) as {
      entries: unknown[];
      next_offset: string;
    };
    expect(nfts.entries).toHaveLength(2);
    expect(typeof nfts.next_offset).toBe('string');
  });
});
