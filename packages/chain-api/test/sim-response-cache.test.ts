import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './support/api-harness.js';
import { insertBlocks, insertTransactions } from './support/seed-chain.js';
import { addr, insertErc20Balances, insertTokens, txHash } from './support/seed-store.js';

// Cached answers of the peer-surface endpoints follow writes to the tables they read
// (transactions/logs/blocks gained change triggers in api-sim-001).
describe('response cache of transactions and token holders', () => {
  let api: TestApi;
  const wallet = addr('simcache-wallet');
  const token = addr('simcache-token');

  beforeAll(async () => {
    api = await startTestApi({ responseCache: { maxBytes: 8 << 20, maxAgeMs: 60_000 } });
    await insertBlocks(api.t.db, [
      { chainId: 1, number: 1, time: 1_700_000_000 },
      { chainId: 1, number: 2, time: 1_700_000_012 },
    ]);
    await insertTransactions(api.t.db, [
      { chainId: 1, blockNumber: 1, txIndex: 0, hash: txHash(1), from: wallet, to: token },
    ]);
    await insertTokens(api.t.db, [
      { chainId: 1, address: token, standard: 'erc20', name: 'C', symbol: 'C', decimals: 18 },
    ]);
    await insertErc20Balances(api.t.db, [{ chainId: 1, wallet, token, amount: '10' }]);
  }, 60_000);

  afterAll(async () => {
    await api?.close();
  });

  async function until(path: string, accept: (body: Record<string, unknown>) => boolean) {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const res = await api.get(path);
      const body = (await res.json()) as Record<string, unknown>;
      if (accept(body)) return { res, body };
      if (Date.now() > deadline) throw new Error(`${path} never changed: ${JSON.stringify(body)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('a new transaction reaches a cached transactions page', async () => {
    const path = `/v1/evm/transactions/${wallet}?chain_ids=1`;
    expect(
      ((await (await api.get(path)).json()) as { transactions: unknown[] }).transactions,
    ).toHaveLength(1);
    expect((await api.get(path)).headers.get('x-cache')).toBe('hit');
    await insertTransactions(api.t.db, [
      { chainId: 1, blockNumber: 2, txIndex: 0, hash: txHash(2), from: addr('x'), to: wallet },
    ]);
    const { res, body } = await until(path, (b) => (b.transactions as unknown[]).length === 2);
    expect(res.headers.get('x-cache')).toBe('miss');
    expect((body.transactions as { hash: string }[])[0]!.hash).toBe(txHash(2));
  });

  it('a new holder reaches a cached holders page', async () => {
    const path = `/v1/evm/token-holders/1/${token}`;
    expect(((await (await api.get(path)).json()) as { holders: unknown[] }).holders).toHaveLength(
      1,
    );
    expect((await api.get(path)).headers.get('x-cache')).toBe('hit');
    await insertErc20Balances(api.t.db, [{ chainId: 1, wallet: addr('y'), token, amount: '99' }]);
    const { body } = await until(path, (b) => (b.holders as unknown[]).length === 2);
    expect((body.holders as { balance: string }[]).map((h) => h.balance)).toEqual(['99', '10']);
  });
});
