import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './support/api-harness.js';
import { addr, insertActivity, type SeedActivity, txHash } from './support/seed-store.js';

/**
 * Keyset pagination under concurrent appends: paging through 10,000 rows of one wallet on two
 * chains while a writer keeps appending newer blocks (as the indexer does at the head) returns
 * every row that existed when paging began exactly once, in feed order, and none of the new ones.
 */

const wallet = addr('pager');
const start = 1_700_000_000;
let api: TestApi;

function rowsFor(from: number, count: number, newer = false): SeedActivity[] {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    // Several rows per block and per second, two chains interleaved, like a busy wallet.
    return {
      chainId: i % 2 ? 1 : 8453,
      wallet,
      blockTime: start + Math.floor(i / 6),
      blockNumber: 10_000 + Math.floor(i / 3),
      txIndex: i % 3,
      logIndex: i % 2,
      subIndex: 0,
      txHash: txHash(i),
      type: newer ? 'send' : 'receive',
      assetType: 'erc20',
      tokenAddress: addr('token'),
      from: addr('from'),
      to: wallet,
      value: String(i),
    };
  });
}

function feedOrder(rows: SeedActivity[]): (string | null | undefined)[] {
  return rows
    .sort(
      (a, b) =>
        b.blockTime - a.blockTime ||
        b.chainId - a.chainId ||
        b.blockNumber - a.blockNumber ||
        b.txIndex - a.txIndex ||
        b.logIndex - a.logIndex,
    )
    .map((r) => r.value);
}

beforeAll(async () => {
  api = await startTestApi();
  await insertActivity(api.t.db, rowsFor(0, 10_000));
});

afterAll(async () => {
  await api?.close();
});

describe('pagination while new blocks arrive', () => {
  it('returns each of 10,000 rows exactly once, in order', async () => {
    const seen: string[] = [];
    let offset: string | undefined;
    let next = 10_000;
    let appended = 0;
    let pages = 0;
    do {
      const res = await api.get(
        `/v1/evm/activity/${wallet}?limit=100${offset ? `&offset=${offset}` : ''}`,
      );
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        activity: { value: string; type: string }[];
        next_offset?: string;
      };
      seen.push(...body.activity.map((a) => a.value));
      offset = body.next_offset;
      pages++;
      // The "indexer" appends a few newer blocks between pages.
      await insertActivity(api.t.db, rowsFor(next, 7, true));
      next += 7;
      appended += 7;
    } while (offset);
    expect(pages).toBe(100);
    expect(appended).toBe(700);
    // The feed order of the original rows (time, chain, block, tx, log: all descending), each
    // once, and none of the appended rows.
    const expected = feedOrder(rowsFor(0, 10_000));
    expect(new Set(seen).size).toBe(10_000);
    expect(seen).toEqual(expected);
    // A fresh first page now starts with the newest appended row.
    const fresh = (await (await api.get(`/v1/evm/activity/${wallet}?limit=1`)).json()) as {
      activity: { value: string }[];
    };
    expect(fresh.activity[0]?.value).toBe(feedOrder(rowsFor(10_000, appended))[0]);
  }, 120_000);
});
