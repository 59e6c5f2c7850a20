import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './support/api-harness.js';
import { insertBlocks, insertTransactions } from './support/seed-chain.js';
import { addr, insertErc20Balances, insertTokens, txHash } from './support/seed-store.js';

// The embedded store (PGlite) answers the peer-surface endpoints as PostgreSQL does.
describe('peer-surface endpoints on PGlite', () => {
  let api: TestApi;
  const wallet = addr('pgl-wallet');
  const token = addr('pgl-token');

  beforeAll(async () => {
    api = await startTestApi({ kind: 'pglite' });
    const db = api.t.db;
    await insertBlocks(
      db,
      Array.from({ length: 10 }, (_, i) => ({
        chainId: 1,
        number: i + 1,
        time: 1_700_000_000 + i * 12,
      })),
    );
    await insertTransactions(
      db,
      Array.from({ length: 10 }, (_, i) => ({
        chainId: 1,
        blockNumber: i + 1,
        txIndex: 0,
        hash: txHash(i + 1),
        from: i % 2 ? wallet : addr('pgl-other'),
        to: i % 2 ? addr('pgl-other') : wallet,
      })),
    );
    await insertTokens(db, [
      { chainId: 1, address: token, standard: 'erc20', name: 'Pg', symbol: 'PGL', decimals: 18 },
    ]);
    await insertErc20Balances(
      db,
      Array.from({ length: 7 }, (_, i) => ({
        chainId: 1,
        wallet: addr('pgl-h', i),
        token,
        amount: String(i + 1),
      })),
    );
  }, 60_000);

  afterAll(async () => {
    await api?.close();
  });

  async function pageAll<T>(path: string, field: string): Promise<T[]> {
    const out: T[] = [];
    let offset: string | undefined;
    do {
      const res = await api.get(`${path}${offset ? `&offset=${offset}` : ''}`);
      expect(res.status, path).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      out.push(...(body[field] as T[]));
      offset = body.next_offset as string | undefined;
    } while (offset);
    return out;
  }

  it('transactions page newest first, each once', async () => {
    const txs = await pageAll<{ hash: string }>(
      `/v1/evm/transactions/${wallet}?chain_ids=1&limit=3`,
      'transactions',
    );
    expect(txs.map((t) => t.hash)).toEqual(Array.from({ length: 10 }, (_, i) => txHash(10 - i)));
  });

  it('holders page by balance, each once; token info sums the supply', async () => {
    const holders = await pageAll<{ balance: string }>(
      `/v1/evm/token-holders/1/${token}?limit=2`,
      'holders',
    );
    expect(holders.map((h) => h.balance)).toEqual(['7', '6', '5', '4', '3', '2', '1']);
    const res = await api.get(`/v1/evm/token-info/${token}?chain_ids=1`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { tokens: { symbol: string }[] }).tokens[0]!.symbol).toBe('PGL');
  });
});
