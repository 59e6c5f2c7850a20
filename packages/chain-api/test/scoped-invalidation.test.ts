import type { Database } from '@sluice/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pricingLookups } from '../src/cli/pricing-lookups.js';
import { rollbackTo } from '../src/reorg/index.js';
import { parseStoreChange, STORE_CHANGED_CHANNEL } from '../src/store/changes/index.js';
import { saveSuccess } from '../src/store/nft/metadata-store.js';
import { insertPriceHistory } from '../src/store/pricing/price-writer.js';
import { startTestApi, type TestApi, testChains } from './support/api-harness.js';
import {
  addr,
  insertCollections,
  insertErc20Balances,
  insertNativeBalances,
  insertNftHoldings,
  insertNftMetadata,
  insertPrices,
  insertTokens,
} from './support/seed-store.js';
import {
  commitPrices,
  commitSyntheticBlock,
  type SyntheticTip,
  startSyntheticChain,
  syntheticPricePoint,
} from './support/synthetic-batch.js';

// Each committed write drops exactly the cached answers of what it touched, through the
// real writers (the indexer's writeBatch, the pricing writer, reorg rollback, the NFT tables).
describe.each(['postgres', 'pglite'] as const)(
  'scoped response-cache invalidation (%s)',
  (kind) => {
    let api: TestApi;
    let tip: SyntheticTip;
    const label = (name: string) => addr(`${name}-${kind}`);
    const a = label('wallet-a');
    const b = label('wallet-b');
    const c = label('wallet-c');
    const funder = label('funder');
    const t1 = label('token-1');
    const t2 = label('token-2');
    const nftX = label('nft-x');
    const nftY = label('nft-y');
    const chains = testChains();

    beforeAll(async () => {
      api = await startTestApi({
        kind,
        chains,
        responseCache: { maxBytes: 16 << 20, maxAgeMs: 60_000 },
        pricingFrom: (db) => pricingLookups(db, chains),
      });
      const db = api.t.db;
      await insertTokens(db, [
        { chainId: 1, address: t1, standard: 'erc20', name: 'One', symbol: 'ONE', decimals: 18 },
        { chainId: 1, address: t2, standard: 'erc20', name: 'Two', symbol: 'TWO', decimals: 6 },
        { chainId: 1, address: nftX, standard: 'erc721', name: 'X', symbol: 'X', decimals: null },
        { chainId: 1, address: nftY, standard: 'erc721', name: 'Y', symbol: 'Y', decimals: null },
      ]);
      await insertPrices(db, [
        { chainId: 1, token: t1, priceUsd: 2, poolSize: 50_000, lowLiquidity: false },
        { chainId: 1, token: 'native', priceUsd: 3_000, poolSize: 9e6, lowLiquidity: false },
      ]);
      await insertNativeBalances(
        db,
        [a, b, c, funder].map((wallet) => ({ chainId: 1, wallet, amount: '10' })),
      );
      await insertErc20Balances(db, [
        ...[a, b, c].map((wallet) => ({ chainId: 1, wallet, token: t1, amount: '1000' })),
        { chainId: 1, wallet: funder, token: t1, amount: '1000000000' },
        { chainId: 1, wallet: b, token: t2, amount: '5' },
      ]);
      await insertNftHoldings(db, [
        {
          chainId: 1,
          wallet: a,
          contract: nftX,
          tokenId: '1',
          standard: 'erc721',
          balance: '1',
          lastAcquired: 1_700_000_000,
        },
        {
          chainId: 1,
          wallet: b,
          contract: nftY,
          tokenId: '2',
          standard: 'erc721',
          balance: '1',
          lastAcquired: 1_700_000_000,
        },
      ]);
      // A pending row, as the indexer inserts it: no values, so no answer changes (nor notifies).
      await insertNftMetadata(db, [
        {
          chainId: 1,
          contract: nftX,
          tokenId: '1',
          standard: 'erc721',
          uri: null,
          name: null,
          status: 'pending',
        },
      ]);
      await insertCollections(db, [
        { chainId: 1, contract: nftX, name: 'X', symbol: 'X', spamScore: 10, isSpam: false },
        { chainId: 1, contract: nftY, name: 'Y', symbol: 'Y', spamScore: 10, isSpam: false },
      ]);
      tip = await startSyntheticChain(db, 1, 100n);
    }, 60_000);

    afterAll(async () => {
      await api?.close();
    });

    const noCache = () => ({ 'x-sim-api-key': api.key, 'cache-control': 'no-cache' });
    const stripTimes = (text: string) =>
      text.replace(/"(request|response)_time":"[^"]*"/g, '"$1_time":""');

    /** Requests `path` until the cache holds it (a hit, or a re-pricing of the kept rows). */
    async function cached(path: string): Promise<void> {
      const deadline = Date.now() + 5_000;
      while (!['hit', 'repriced'].includes((await api.get(path)).headers.get('x-cache') ?? '')) {
        if (Date.now() > deadline) throw new Error(`${path} never cached`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }

    /** Requests `path` until the answer is no longer the cached one; returns its outcome. */
    async function changed(path: string): Promise<{ outcome: string | null; text: string }> {
      const deadline = Date.now() + 5_000;
      for (;;) {
        const res = await api.get(path);
        const outcome = res.headers.get('x-cache');
        if (outcome !== 'hit') return { outcome, text: await res.text() };
        if (Date.now() > deadline) throw new Error(`${path} stayed cached`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }

    const balances = (wallet: string) => `/v1/evm/balances/${wallet}?chain_ids=1`;
    const activity = (wallet: string) => `/v1/evm/activity/${wallet}?chain_ids=1`;
    const collectibles = (wallet: string, spam = true) =>
      `/v1/evm/collectibles/${wallet}?chain_ids=1&filter_spam=${spam}`;

    it('a committed batch drops the answers of the wallets it touched and keeps the others', async () => {
      const kept = [
        balances(b),
        activity(b),
        collectibles(b),
        // An ERC20 transfer: A's NFT holdings did not change.
        collectibles(a),
        `/v1/evm/balances/${b}?chain_ids=8453`,
        // Nor A's balances of other tokens, native included.
        `/v1/evm/balances/${a}/token/${t2}?chain_ids=1`,
        `/v1/evm/balances/${a}/token/native?chain_ids=1`,
      ];
      const dropped = [balances(a), activity(a), `/v1/evm/balances/${a}/token/${t1}?chain_ids=1`];
      for (const path of [...kept, ...dropped]) await cached(path);
      tip = await commitSyntheticBlock(api.t.db, 1, tip, [
        { from: funder, to: a, token: t1, value: 7n },
      ]);
      const after = new Map<string, string>();
      for (const path of dropped) {
        const { outcome, text } = await changed(path);
        expect(outcome).toBe('miss');
        after.set(path, text);
      }
      const body = JSON.parse(after.get(balances(a))!) as {
        balances: { address: string; amount: string }[];
      };
      expect(body.balances.find((x) => x.address === t1)?.amount).toBe('1007');
      // A's change was processed above (one notification): B's answers are still the cached ones.
      for (const path of kept) expect((await api.get(path)).headers.get('x-cache')).toBe('hit');
    });

    it('a price tick re-prices cached holdings to exactly the uncached answer', async () => {
      const paths = [balances(a), activity(a), `/v1/evm/balances/${a}/token/${t1}?chain_ids=1`];
      for (const path of paths) await cached(path);
      const etagBefore = (await api.get(activity(a))).headers.get('etag');
      const time = new Date();
      const point = (token: string, priceUsd: number, poolSize: number) =>
        syntheticPricePoint(token, tip.block, time, priceUsd, poolSize);
      // The pricing worker's own write path.
      await commitPrices(api.t.db, 1, [point(t1, 2.5, 60_000)]);
      for (const path of paths) {
        const { outcome, text } = await changed(path);
        expect(outcome).toBe('repriced');
        expect(text).toContain('2.5');
        const fresh = await api.get(path, noCache());
        expect(stripTimes(text)).toBe(stripTimes(await fresh.text()));
        if (path === activity(a)) {
          const res = await api.get(path);
          expect(res.headers.get('x-cache')).toBe('hit');
          expect(res.headers.get('etag')).toBe(fresh.headers.get('etag'));
          expect(res.headers.get('etag')).not.toBe(etagBefore);
        }
      }
      // B holds T1 too (re-priced); its T2 answer never showed T1.
      expect((await changed(balances(b))).outcome).toBe('repriced');

      // History written at the block time of A's items changes their at-time price: the page
      // is dropped (its history bound reaches that time); current holdings stay cached.
      const items = JSON.parse(await (await api.get(activity(a))).text()) as {
        activity: { block_time: string }[];
      };
      const blockTime = new Date(items.activity[0]!.block_time);
      await cached(balances(a));
      await api.t.db.transaction((tx) =>
        insertPriceHistory(tx, 1, [{ ...point(t1, 2.75, 60_000), time: blockTime }]),
      );
      const { outcome, text } = await changed(activity(a));
      expect(outcome).toBe('miss');
      expect(text).toContain('2.75');
      expect(text).toBe(await (await api.get(activity(a), noCache())).text());
      expect((await api.get(balances(a))).headers.get('x-cache')).toBe('hit');
    });

    it('a reorg rollback drops every wallet it undid', async () => {
      const before = tip;
      tip = await commitSyntheticBlock(
        api.t.db,
        1,
        tip,
        [
          { from: funder, to: c, token: t1, value: 3n },
          { from: funder, to: c, token: null, value: 1n },
        ],
        {
          undo: true,
          nativeBalances: new Map([
            [c, 11n],
            [funder, 9n],
          ]),
        },
      );
      await cached(balances(c));
      expect(await (await api.get(balances(c), noCache())).text()).toContain('"amount":"1003"');
      await cached(balances(b));
      await cached(activity(c));
      await api.t.db.transaction((tx) => rollbackTo(tx, 1, before.block));
      tip = before;
      const after = await changed(balances(c));
      expect(after.outcome).toBe('miss');
      expect(after.text).toContain('"amount":"1000"');
      expect(after.text).toContain('"amount":"10"');
      expect(JSON.parse((await changed(activity(c))).text)).toEqual({ activity: [] });
      expect((await api.get(balances(b))).headers.get('x-cache')).toBe('hit');
    });

    it('NFT metadata and spam verdicts drop the collections they name', async () => {
      await cached(collectibles(a));
      await cached(collectibles(a, false));
      await cached(collectibles(b));
      await cached(collectibles(b, false));
      // The NFT worker's own write path: a fetched document lands on the pending row.
      const claimed = {
        chainId: 1,
        contract: nftX,
        tokenId: 1n,
        standard: 'erc721' as const,
        uri: null,
        status: 'pending' as const,
        attempts: 0,
        refreshBlock: null,
        held: true,
        deferrals: 0,
      };
      await saveSuccess(
        api.t.db,
        claimed,
        'ipfs://x/1',
        {
          name: 'Renamed X #1',
          description: null,
          imageUrl: null,
          attributes: [],
          externalUrl: null,
        },
        60_000,
      );
      expect((await changed(collectibles(a))).text).toContain('Renamed X #1');
      expect((await changed(collectibles(a, false))).text).toContain('Renamed X #1');
      expect((await api.get(collectibles(b))).headers.get('x-cache')).toBe('hit');
      await cached(collectibles(a, false));
      // Y becomes spam: hidden from filter_spam answers, flagged in the others.
      await api.t.db.query(
        'update nft_collections set is_spam = true, spam_score = 90 where chain_id = 1 and contract = $1',
        [nftY],
      );
      expect(JSON.parse((await changed(collectibles(b))).text).entries).toEqual([]);
      expect((await changed(collectibles(b, false))).text).toContain('"is_spam":true');
      // Answers hiding spam cannot tell which hidden collection flipped: all of the chain's go.
      expect((await api.get(collectibles(a))).headers.get('x-cache')).toBe('miss');
      expect((await api.get(collectibles(a, false))).headers.get('x-cache')).toBe('hit');
    });

    it('a batch touching more wallets than its notification holds drops the whole chain', async () => {
      await cached(balances(b));
      await cached(`/v1/evm/balances/${b}?chain_ids=8453`);
      const many = Array.from({ length: 6_500 }, (_, i) => ({
        from: addr(`crowd-${kind}`, 2 * i),
        to: addr(`crowd-${kind}`, 2 * i + 1),
        token: null,
        value: 1n,
      }));
      tip = await commitSyntheticBlock(api.t.db, 1, tip, many);
      expect((await changed(balances(b))).outcome).toBe('miss');
      expect((await api.get(`/v1/evm/balances/${b}?chain_ids=8453`)).headers.get('x-cache')).toBe(
        'hit',
      );
    });
  },
);

describe('store change notifications on PostgreSQL', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  }, 60_000);
  afterAll(async () => {
    await api?.close();
  });

  it('name every wallet of a 1,000-wallet block in messages under 8,000 bytes, with the LSN', async () => {
    const db: Database = api.t.db;
    const payloads: string[] = [];
    let tip = await startSyntheticChain(db, 1, 10n);
    const listener = await db.listen(STORE_CHANGED_CHANNEL, (p) => payloads.push(p));
    // LISTEN hears the whole database: other test files' stores notify on the same channel.
    const { rows } = await db.query<{ schema: string }>('select current_schema() as schema');
    try {
      const wallets = Array.from({ length: 1_000 }, (_, i) => addr('notified', i));
      tip = await commitSyntheticBlock(
        db,
        1,
        tip,
        wallets.map((to, i) => ({ from: addr('payer', i % 10), to, token: null, value: 1n })),
      );
      const deadline = Date.now() + 5_000;
      const seen = new Set<string>();
      while (seen.size < 1_010 && Date.now() < deadline) {
        for (const p of payloads.splice(0)) {
          expect(Buffer.byteLength(p)).toBeLessThan(8_000);
          const change = parseStoreChange(p);
          if (change.schema !== rows[0]!.schema) continue;
          expect(change.all).toBe(false);
          expect(change.lsn).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
          for (const chain of change.chains) for (const w of chain.wallets) seen.add(w);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(seen.size).toBe(1_010);
      for (const w of wallets) expect(seen.has(w.slice(2))).toBe(true);
    } finally {
      await listener.close();
    }
  });
});
