import { migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainMigrations } from '../db/index.js';
import { discoverCollections } from './collection-discovery.js';
import { collectionsDue, fillFirstSeen, saveCollectionInfo } from './collection-store.js';
import { normalizeGateways } from './gateways.js';
import {
  claimDue,
  claimSamples,
  enqueueMissing,
  saveFailure,
  saveSuccess,
} from './metadata-store.js';
import { nftMigrations } from './migrations.js';
import { normalizeMetadata, parseMetadataJson } from './normalize-metadata.js';
import { spamConfig } from './spam/spam-config.js';
import { computeSpamScores } from './spam/spam-store.js';
import { erc1155UriTopic, requeueUriEvents } from './uri-events.js';

const wallet = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
const legit = '0x1000000000000000000000000000000000000001';
const spam = '0x2000000000000000000000000000000000000002';
const young = '0x3000000000000000000000000000000000000003';

describe.each(['postgres', 'pglite'] as const)('NFT stores on %s', (kind) => {
  let t: TestDatabase;

  beforeAll(async () => {
    t = await createTestDatabase(kind);
    await migrate(t.db, [...chainMigrations, ...nftMigrations]);
    const holdings: unknown[][] = [];
    for (let i = 1; i <= 30; i++) holdings.push([wallet(i), legit, i, '40 days']);
    for (let i = 1; i <= 20; i++) holdings.push([wallet(i), spam, i, '20 days']);
    holdings.push([wallet(1), young, 1, '1 day']);
    for (const [w, contract, id, age] of holdings) {
      await t.db.query(
        `insert into nft_holdings (wallet, chain_id, contract, token_id, standard, balance, last_acquired, last_acquired_block, updated_block)
         values ($1, 1, $2, $3, 'erc721', 1, now() - $4::interval, 1, 1)`,
        [w, contract, id, age],
      );
    }
    // 25 sales of the legit collection between 20 buyers and 12 sellers.
    for (let i = 0; i < 25; i++) {
      await t.db.query(
        `insert into nft_sales (chain_id, contract, token_id, block_number, block_time, tx_hash, log_index, seller, buyer, quantity, payment_token, price)
         values (1, $1, $2, $3, now(), '0x', 0, $4, $5, 1, 'native', 1000)`,
        [legit, (i % 30) + 1, i + 1, wallet(100 + (i % 12)), wallet(200 + (i % 20))],
      );
    }
  }, 60_000);

  afterAll(async () => {
    await t?.drop();
  });

  it('queues every held token once and every contract as a collection', async () => {
    expect(await enqueueMissing(t.db)).toBe(51);
    expect(await enqueueMissing(t.db)).toBe(0);
    const { rows } = await t.db.query<{ n: string }>(
      'select count(*)::text as n from nft_collections',
    );
    expect(rows[0]?.n).toBe('3');
  });

  it('claims due tokens under a lease, never twice', async () => {
    const first = await claimDue(t.db, [1], 40, 60_000);
    const second = await claimDue(t.db, [1], 40, 60_000);
    expect(first).toHaveLength(40);
    expect(second).toHaveLength(11);
    const keys = new Set([...first, ...second].map((c) => `${c.contract}:${c.tokenId}`));
    expect(keys.size).toBe(51);
    expect(await claimDue(t.db, [1], 40, 60_000)).toHaveLength(0);
    expect(await claimDue(t.db, [2], 40, 60_000)).toHaveLength(0);

    for (const token of [...first, ...second]) {
      if (token.contract === spam) {
        await saveSuccess(
          t.db,
          token,
          `https://claims.example/${token.tokenId}`,
          {
            name: '$5000 USDC Reward Voucher',
            description: 'Claim your airdrop at https://bit.ly/free-usdc',
            imageUrl: 'https://claims.example/v.png',
            attributes: [],
            externalUrl: null,
          },
          86_400_000,
        );
      } else if (token.contract === legit) {
        await saveSuccess(
          t.db,
          token,
          `ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG/${token.tokenId}`,
          {
            name: `Ape #${token.tokenId}`,
            description: 'An ape',
            imageUrl: null,
            attributes: [{ key: 'Fur', value: 'Gold' }],
            externalUrl: null,
          },
          86_400_000,
        );
      } else {
        await saveFailure(t.db, token, null, 'HTTP_STATUS: HTTP 404', 60_000);
      }
    }
    const failed = await t.db.query<{ status: string; attempts: number }>(
      'select status, attempts from nft_metadata where contract = $1',
      [young],
    );
    expect(failed.rows[0]).toEqual({ status: 'failed', attempts: 1 });
  });

  it('takes collection names from the tokens table and the first-seen time from holdings', async () => {
    await t.db.query(
      `insert into tokens (chain_id, address, standard, name, symbol, status, first_block) values (1, $1, 'erc721', 'Apes', 'APE', 'ok', 1)`,
      [legit],
    );
    await fillFirstSeen(t.db);
    const due = await collectionsDue(t.db, [1], 10);
    expect(due.map((d) => d.contract).sort()).toEqual([spam, young]);
    for (const d of due)
      await saveCollectionInfo(t.db, d, {
        name: d.contract === spam ? 'Reward Vouchers' : null,
        symbol: null,
      });
    const { rows } = await t.db.query<{ contract: string; name: string | null; age: number }>(
      `select contract, name, extract(epoch from now() - first_seen_at)::float8 / 86400 as age from nft_collections order by contract`,
    );
    expect(rows.map((r) => [r.contract, r.name, Math.round(r.age)])).toEqual([
      [legit, 'Apes', 40],
      [spam, 'Reward Vouchers', 20],
      [young, null, 1],
    ]);
  });

  it('scores and stores spam per collection for the API', async () => {
    const scored = await computeSpamScores(t.db, spamConfig(), { limit: 100, maxAgeMs: 600_000 });
    expect(scored).toBe(3);
    const { rows } = await t.db.query<{
      contract: string;
      spam_score: number;
      is_spam: boolean;
      spam_explanations: Array<{
        feature: string;
        value: unknown;
        feature_score: number;
        feature_weight: number;
      }>;
    }>(
      'select contract, spam_score, is_spam, spam_explanations from nft_collections order by contract',
    );
    const [apes, vouchers, fresh] = rows;
    expect(apes).toMatchObject({ is_spam: false });
    expect(apes?.spam_explanations.find((e) => e.feature === 'trade_volume')?.value).toBe(25);
    expect(apes?.spam_explanations.find((e) => e.feature === 'unique_buyers')?.value).toBe(20);
    expect(apes?.spam_explanations.find((e) => e.feature === 'unique_sellers')?.value).toBe(12);
    expect(apes?.spam_score).toBeLessThan(10);
    expect(vouchers).toMatchObject({ is_spam: true });
    expect(vouchers?.spam_score).toBeGreaterThanOrEqual(80);
    expect(vouchers?.spam_explanations.find((e) => e.feature === 'url_shortener')).toMatchObject({
      value: true,
      feature_score: 100,
    });
    // Too young to have traded: the volume is explained but does not count.
    expect(fresh?.spam_explanations.find((e) => e.feature === 'trade_volume')).toMatchObject({
      value: 0,
      feature_weight: 0,
    });
    expect(fresh?.spam_explanations.map((e) => e.feature)).not.toContain('uri_non_ipfs'); // no URI known yet
    // Scored rows are not due again until they age or are marked dirty.
    expect(await computeSpamScores(t.db, spamConfig(), { limit: 100, maxAgeMs: 600_000 })).toBe(0);
    const strict = spamConfig({ denyList: [`1:${legit}`] });
    expect(await computeSpamScores(t.db, strict, { limit: 100, maxAgeMs: 0 })).toBe(3);
    const flagged = await t.db.query<{ is_spam: boolean }>(
      'select is_spam from nft_collections where contract = $1',
      [legit],
    );
    expect(flagged.rows[0]?.is_spam).toBe(true);
  });

  it('re-queues tokens on indexed ERC-1155 URI events, once per event, across the unfinalized window', async () => {
    const chains = [{ chainId: 1, finalityDepth: 10 }];
    const status = async () =>
      (
        await t.db.query<{ status: string; refresh_block: string | null }>(
          `select status, refresh_block::text as refresh_block from nft_metadata where chain_id = 1 and contract = $1 and token_id = 2`,
          [legit],
        )
      ).rows[0];
    const log = (block: number, index: number, topic0: string, id: bigint) =>
      t.db.query(
        `insert into logs (chain_id, block_number, tx_index, log_index, address, topic0, topic1, data)
         values (1, $1, 0, $2, $3, $4, $5, '\\x00')`,
        [block, index, legit, topic0, `0x${id.toString(16).padStart(64, '0')}`],
      );
    expect(await requeueUriEvents(t.db, chains)).toBe(0); // no checkpoint yet: nothing indexed
    await t.db.query(
      `insert into checkpoints (chain_id, indexed_block, indexed_hash) values (1, 100, '0x')`,
    );
    await log(50, 0, erc1155UriTopic, 2n);
    await log(51, 0, `0x${'e'.repeat(64)}`, 2n); // another event
    expect((await status())?.status).toBe('ok');
    expect(await requeueUriEvents(t.db, chains)).toBe(1);
    expect(await status()).toEqual({ status: 'pending', refresh_block: '50' });
    expect(await requeueUriEvents(t.db, chains)).toBe(0);
    // An event inside the unfinalized window (cursor = 100 - 10 = 90) is seen on every pass but
    // re-queues only once.
    await t.db.query(
      `update nft_metadata set status = 'ok' where chain_id = 1 and contract = $1 and token_id = 2`,
      [legit],
    );
    await log(95, 0, erc1155UriTopic, 2n);
    expect(await requeueUriEvents(t.db, chains)).toBe(1);
    expect(await requeueUriEvents(t.db, chains)).toBe(0);
    expect(await status()).toEqual({ status: 'pending', refresh_block: '95' });
  });

  it('stores emoji and (replaced) lone surrogates from a document in text and jsonb', async () => {
    const contract = '0x7000000000000000000000000000000000000007';
    await t.db.query(
      `insert into nft_metadata (chain_id, contract, token_id, standard) values (7, $1, 1, 'erc721')`,
      [contract],
    );
    // A lone surrogate as JSON.stringify writes it is refused by jsonb: what the cleaning prevents.
    await expect(
      t.db.query(`select $1::jsonb`, [JSON.stringify([{ v: '\uD83D' }])]),
    ).rejects.toThrow();
    const [token] = await claimDue(t.db, [7], 10, 60_000);
    const doc = parseMetadataJson(
      `{"name":"${'🐸'.repeat(1_001)}","description":"pond \\ud83d","attributes":[{"trait_type":"Mood\\ude00","value":"😀\\ud83d"}]}`,
    );
    const meta = normalizeMetadata(doc, normalizeGateways({}));
    expect(await saveSuccess(t.db, token!, 'data:application/json,{}', meta, 60_000)).toBe(true);
    const { rows } = await t.db.query<{ name: string; description: string; attributes: unknown }>(
      'select name, description, attributes from nft_metadata where chain_id = 7',
    );
    expect(rows[0]).toEqual({
      name: '🐸'.repeat(1_000),
      description: 'pond \uFFFD',
      attributes: [{ key: 'Mood\uFFFD', value: '😀\uFFFD' }],
    });
  });

  it('discovers collections from indexed transfers, resumes, re-reads after a reorg, debounces re-scores', async () => {
    const chains = [{ chainId: 5, finalityDepth: 3 }];
    const a = '0x5000000000000000000000000000000000000005';
    const approved = '0x5100000000000000000000000000000000000005';
    const block = (n: number, hash = `0x${n}`) =>
      t.db.query(
        `insert into blocks (chain_id, number, hash, parent_hash, timestamp) values (5, $1, $2, '0x', now())
         on conflict (chain_id, number) do update set hash = excluded.hash`,
        [n, hash],
      );
    const activity = (n: number, contract: string, type: string) =>
      t.db.query(
        `insert into activity (chain_id, wallet, block_time, block_number, tx_index, log_index, tx_hash, type, asset_type, token_address)
         values (5, $1, now(), $2, 0, 0, '0x', $3, 'erc721', $4)`,
        [wallet(n), n, type, contract],
      );
    const indexed = (n: number) =>
      t.db.query(
        `insert into checkpoints (chain_id, indexed_block, indexed_hash) values (5, $1, '0x')
         on conflict (chain_id) do update set indexed_block = excluded.indexed_block`,
        [n],
      );
    const discover = (debounceMs = 0) =>
      discoverCollections(t.db, chains, { maxBlocks: 5, debounceMs });
    const score = () =>
      computeSpamScores(t.db, spamConfig(), { limit: 50, maxAgeMs: 3_600_000, chainIds: [5] });
    expect(await discover()).toMatchObject({ discovered: 0, touched: 0, behind: false });
    for (let n = 0; n <= 12; n++) await block(n);
    await activity(2, a, 'mint');
    await activity(3, approved, 'approve'); // an approval is not a transfer of the collection
    await indexed(12);
    expect(await discover()).toEqual({
      discovered: 1,
      found: [{ chainId: 5, contract: a }],
      touched: 0,
      behind: true,
    }); // blocks 0..4
    expect(await discover()).toMatchObject({ discovered: 0, touched: 0, behind: true }); // 5..9
    expect(await discover()).toMatchObject({ discovered: 0, touched: 0, behind: false }); // 10..12
    expect(await score()).toBe(1);
    expect(await score()).toBe(0);
    // A new transfer of a scored collection asks for a re-score, at most once per debounce.
    await block(13);
    await activity(13, a, 'receive');
    await indexed(13);
    expect(await discover(3_600_000)).toMatchObject({ touched: 1 });
    expect(await score()).toBe(0);
    await block(14);
    await activity(14, a, 'receive');
    await indexed(14);
    expect(await discover(0)).toMatchObject({ touched: 1 });
    expect(await score()).toBe(1);
    // The cursor's block (14) is replaced by a reorg: blocks 11..14 are read again.
    await block(14, '0xother');
    expect(await discover(0)).toMatchObject({ discovered: 0, touched: 1, behind: false });
    expect(await discover(0)).toMatchObject({ discovered: 0, touched: 0, behind: false });
    const { rows } = await t.db.query<{ contract: string }>(
      'select contract from nft_collections where chain_id = 5',
    );
    expect(rows).toEqual([{ contract: a }]);
  });

  it('claims one pending sample token per newly found collection', async () => {
    const c1 = '0x9100000000000000000000000000000000000009';
    const c2 = '0x9200000000000000000000000000000000000009';
    for (const [contract, id, status] of [
      [c1, 1, 'pending'],
      [c1, 2, 'pending'],
      [c2, 1, 'ok'],
    ] as const) {
      await t.db.query(
        `insert into nft_metadata (chain_id, contract, token_id, standard, status) values (9, $1, $2, 'erc721', $3)`,
        [contract, id, status],
      );
    }
    const found = [
      { chainId: 9, contract: c1 },
      { chainId: 9, contract: c2 }, // nothing pending: no sample
    ];
    const first = await claimSamples(t.db, found, 10, 60_000);
    expect(first.map((c) => [c.contract, c.status])).toEqual([[c1, 'pending']]);
    const second = await claimSamples(t.db, found, 10, 60_000); // the other pending token
    expect(second).toHaveLength(1);
    expect(second[0]!.tokenId).not.toBe(first[0]!.tokenId);
    expect(await claimSamples(t.db, found, 10, 60_000)).toEqual([]); // both leased
    expect(await claimSamples(t.db, found, 0, 60_000)).toEqual([]);
  });
});
