import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './support/api-harness.js';
import { assertMatchesReference, referenceAvailable } from './support/reference-schemas.js';
import {
  addr,
  insertActivity,
  insertErc20Balances,
  insertNativeBalances,
  insertNftHoldings,
  insertPrices,
  insertTokens,
  txHash,
} from './support/seed-store.js';

// The response cache must never serve what the store no longer says: each case writes through
// another connection (as the indexer does) and expects the next answers to follow.
describe.each(['postgres', 'pglite'] as const)('response cache (%s)', (kind) => {
  let api: TestApi;
  const wallet = addr(`cache-wallet-${kind}`);
  const tokenA = addr(`cache-token-a-${kind}`);
  const tokenB = addr(`cache-token-b-${kind}`);
  const marker = addr(`cache-mark-${kind}`);
  const t0 = 1_750_000_000;

  beforeAll(async () => {
    api = await startTestApi({ kind, responseCache: { maxBytes: 8 << 20, maxAgeMs: 60_000 } });
    const db = api.t.db;
    await insertTokens(db, [
      { chainId: 1, address: tokenA, standard: 'erc20', name: 'A', symbol: 'A', decimals: 18 },
      { chainId: 1, address: tokenB, standard: 'erc20', name: 'B', symbol: 'B', decimals: 6 },
      { chainId: 1, address: marker, standard: 'erc20', name: 'M', symbol: 'M', decimals: 18 },
    ]);
    await insertPrices(db, [
      { chainId: 1, token: marker, priceUsd: 1, poolSize: 1e6, lowLiquidity: false },
    ]);
    await insertNativeBalances(db, [{ chainId: 1, wallet, amount: '5' }]);
    await insertErc20Balances(db, [{ chainId: 1, wallet, token: tokenA, amount: '1000' }]);
    await insertActivity(db, [
      {
        chainId: 1,
        wallet,
        blockTime: t0,
        blockNumber: 10,
        txIndex: 0,
        logIndex: 0,
        txHash: txHash(1),
        type: 'receive',
        assetType: 'native',
        from: addr('cache-sender'),
        to: wallet,
        value: '5',
      },
    ]);
    await insertNftHoldings(db, [
      {
        chainId: 1,
        wallet,
        contract: addr(`cache-nft-${kind}`),
        tokenId: '1',
        standard: 'erc721',
        balance: '1',
        lastAcquired: t0,
      },
    ]);
  }, 60_000);

  afterAll(async () => {
    await api?.close();
  });

  /** Polls `path` until `accept` holds (store changes arrive asynchronously, within ms). */
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

  let markers = 0;
  /**
   * Moves the marker token's price and waits until its cached token info shows the new one:
   * store changes arrive in commit order, so by then any change committed earlier was heard.
   * (A price change names its token only; the wallet's pages do not show the marker.)
   */
  async function earlierChangesHeard(): Promise<void> {
    const path = `/v1/evm/token-info/${marker}?chain_ids=1`;
    const deadline = Date.now() + 5_000;
    while ((await api.get(path)).headers.get('x-cache') !== 'hit') {
      if (Date.now() > deadline) throw new Error('marker never cached');
    }
    const price = 1 + ++markers;
    await api.t.db.query(
      'update token_prices set price_usd = $3 where chain_id = $1 and token = $2',
      [1, marker, price],
    );
    await until(path, (body) => (body.tokens as { price_usd?: number }[])[0]?.price_usd === price);
  }

  it('answers a repeated balances request from the cache with fresh request/response times', async () => {
    const path = `/v1/evm/balances/${wallet}?chain_ids=1`;
    const first = await api.get(path);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-cache')).toBe('miss');
    const a = (await first.json()) as Record<string, unknown>;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await api.get(path);
    expect(second.headers.get('x-cache')).toBe('hit');
    expect(second.headers.get('cache-control')).toBe('private, no-cache');
    const b = (await second.json()) as Record<string, unknown>;
    expect(b.balances).toEqual(a.balances);
    expect(Date.parse(b.request_time as string)).toBeGreaterThan(
      Date.parse(a.request_time as string),
    );
    expect(Date.parse(b.response_time as string)).toBeGreaterThanOrEqual(
      Date.parse(b.request_time as string),
    );
    if (referenceAvailable()) assertMatchesReference('BalancesResponse', b);
  });

  it('follows a committed write from another connection, ignores a rolled-back one', async () => {
    const path = `/v1/evm/balances/${wallet}?chain_ids=1&filters=erc20`;
    const before = (await (await api.get(path)).json()) as { balances: unknown[] };
    expect(before.balances).toHaveLength(1);
    expect((await api.get(path)).headers.get('x-cache')).toBe('hit');

    await api.t.db
      .transaction(async (tx) => {
        await insertErc20Balances(tx, [{ chainId: 1, wallet, token: tokenB, amount: '7' }]);
        throw new Error('rolled back');
      })
      .catch(() => {});
    await earlierChangesHeard();
    expect((await api.get(path)).headers.get('x-cache')).toBe('hit');

    await insertErc20Balances(api.t.db, [{ chainId: 1, wallet, token: tokenB, amount: '7' }]);
    const { res, body } = await until(path, (b) => (b.balances as unknown[]).length === 2);
    expect(res.headers.get('x-cache')).toBe('miss');
    expect((body.balances as { address: string }[]).map((x) => x.address).sort()).toEqual(
      [tokenA, tokenB].sort(),
    );
    expect((await api.get(path)).headers.get('x-cache')).toBe('hit');
  });

  it('keeps activity ETags: 304 for a cached page the client has, new tag after a change', async () => {
    const path = `/v1/evm/activity/${wallet}?chain_ids=1`;
    const first = await api.get(path);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await api.get(path);
    expect(again.headers.get('x-cache')).toBe('hit');
    expect(again.headers.get('etag')).toBe(etag);
    const notModified = await api.get(path, { 'x-sim-api-key': api.key, 'if-none-match': etag });
    expect(notModified.status).toBe(304);

    await insertActivity(api.t.db, [
      {
        chainId: 1,
        wallet,
        blockTime: t0 + 12,
        blockNumber: 11,
        txIndex: 0,
        logIndex: 0,
        txHash: txHash(2),
        type: 'send',
        assetType: 'native',
        from: wallet,
        to: addr('cache-receiver'),
        value: '1',
      },
    ]);
    const { res } = await until(path, (b) => (b.activity as unknown[]).length === 2);
    expect(res.headers.get('etag')).not.toBe(etag);
  });

  it('bypasses the cache for a chain that is not ready and for Cache-Control: no-cache', async () => {
    const path = `/v1/evm/collectibles/${wallet}?chain_ids=1,8453`;
    await api.get(path);
    expect((await api.get(path)).headers.get('x-cache')).toBe('hit');
    api.setReady(8453, false);
    try {
      const res = await api.get(path);
      expect(res.headers.get('x-cache')).toBe('bypass');
      const body = (await res.json()) as { warnings?: { code: string }[] };
      expect(body.warnings?.map((w) => w.code)).toContain('CHAINS_NOT_READY');
    } finally {
      api.setReady(8453, true);
    }
    const forced = await api.get(path, { 'x-sim-api-key': api.key, 'cache-control': 'no-cache' });
    expect(forced.headers.get('x-cache')).toBe('bypass');
    expect(forced.status).toBe(200);
  });

  it('ignores progress-only writes (pricing cursor position) but not anchor changes', async () => {
    const path = `/v1/evm/balances/${wallet}?chain_ids=1&filters=native`;
    await api.t.db.query(
      `insert into pricing_cursors (chain_id, last_block, wrapped_native, stablecoins)
       values (1, 10, null, '{}') on conflict (chain_id) do nothing`,
    );
    await until(path, () => true);
    const deadline = Date.now() + 5_000;
    while ((await api.get(path)).headers.get('x-cache') !== 'hit') {
      if (Date.now() > deadline) throw new Error('never cached');
    }
    await api.t.db.query(
      'update pricing_cursors set last_block = last_block + 1, updated_at = now() where chain_id = 1',
    );
    await earlierChangesHeard();
    expect((await api.get(path)).headers.get('x-cache')).toBe('hit');
    await api.t.db.query(
      `update pricing_cursors set stablecoins = array['0x0000000000000000000000000000000000000001']
        where chain_id = 1`,
    );
    const changed = Date.now() + 5_000;
    while ((await api.get(path)).headers.get('x-cache') === 'hit') {
      if (Date.now() > changed) throw new Error('anchor change never invalidated');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  it('READ_FENCE: runs after authentication; a failed fence bypasses the cache', async () => {
    let fenced = 0;
    let fenceOk = true;
    const own = await startTestApi({
      kind,
      responseCache: { maxBytes: 8 << 20, maxAgeMs: 60_000 },
      readFence: async () => {
        fenced++;
        return fenceOk;
      },
    });
    try {
      await insertNativeBalances(own.t.db, [{ chainId: 1, wallet, amount: '77' }]);
      const path = `/v1/evm/balances/${wallet}?chain_ids=1`;
      expect((await own.get(path, { 'x-sim-api-key': 'sk_wrong' })).status).toBe(401);
      expect(fenced).toBe(0);
      await own.get(path);
      expect((await own.get(path)).headers.get('x-cache')).toBe('hit');
      expect(fenced).toBe(2);
      fenceOk = false;
      const res = await own.get(path);
      expect(res.headers.get('x-cache')).toBe('bypass');
      expect(((await res.json()) as { balances: { amount: string }[] }).balances[0]?.amount).toBe(
        '77',
      );
      fenceOk = true;
      expect((await own.get(path)).headers.get('x-cache')).toBe('hit');
    } finally {
      await own.close();
    }
  });

  it('never caches errors: a bad parameter is a 400 every time', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await api.get(`/v1/evm/balances/${wallet}?limit=abc`);
      expect(res.status).toBe(400);
      expect(res.headers.get('x-cache')).toBeNull();
    }
  });

  it.runIf(kind === 'postgres')(
    'bypasses the cache while its change listener is disconnected, then resumes',
    async () => {
      const path = `/v1/evm/balances/${wallet}/token/native?chain_ids=1`;
      await api.get(path);
      expect((await api.get(path)).headers.get('x-cache')).toBe('hit');
      const killed = await api.t.db.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
          where application_name = $1 and query ilike 'listen %'`,
        [api.applicationName],
      );
      expect(killed.rowCount).toBe(1);
      // A write while nobody listens must still show up afterwards.
      await api.t.db.query('update native_balances set amount = 6 where wallet = $1', [wallet]);
      const { body } = await until(
        path,
        (b) => (b.balances as { amount: string }[])[0]?.amount === '6',
      );
      expect((body.balances as { amount: string }[])[0]?.amount).toBe('6');
      await until(path, () => true);
      const deadline = Date.now() + 5_000;
      let outcome: string | null = null;
      while (Date.now() < deadline && outcome !== 'hit') {
        outcome = (await api.get(path)).headers.get('x-cache');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(outcome).toBe('hit');
    },
  );
});
