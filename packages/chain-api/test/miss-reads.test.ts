import { type Database, migrate, openDatabase } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectActivity } from '../src/api/queries/activity-query.js';
import { selectCollectibles } from '../src/api/queries/collectibles-query.js';
import { pricingLookups } from '../src/cli/pricing-lookups.js';
import { storeMigrations } from '../src/store/migrations.js';
import {
  addr,
  insertActivity,
  insertCollections,
  insertNftHoldings,
  insertTokens,
  txHash,
} from './support/seed-store.js';

/**
 * The reads of a cache miss run as prepared statements on each connection (planning and parsing
 * them cost more than running them). The page queries take their page first and look metadata
 * up per row: the answers are those of the joined form, on a store shaped like a real one (many
 * tokens, one busy wallet), and price lookups are one prepared statement, not parsed per call.
 */
let t: TestDatabase;
let db: Database;
const wallets = Array.from({ length: 12 }, (_, i) => addr('plan-wallet', i));
// Shaped like a real store: many tokens, one wallet far busier than the rest.
const tokens = Array.from({ length: 1_000 }, (_, i) => addr('plan-token', i));
const heavy = addr('plan-heavy');
const nft = addr('plan-nft');
const spam = addr('plan-spam');

beforeAll(async () => {
  t = await createTestDatabase('postgres');
  await migrate(t.db, storeMigrations);
  await insertTokens(t.db, [
    ...tokens.map((address, i) => ({
      chainId: 1,
      address,
      standard: 'erc20' as const,
      name: `Token ${i}`,
      symbol: `T${i}`,
      decimals: 18,
    })),
    {
      chainId: 1,
      address: nft,
      standard: 'erc721',
      name: 'Plan NFT',
      symbol: 'PN',
      decimals: null,
    },
  ]);
  await insertCollections(t.db, [
    { chainId: 1, contract: nft, name: 'Plan NFT', symbol: 'PN', spamScore: 0, isSpam: false },
    { chainId: 1, contract: spam, name: 'Free Claim', symbol: 'FC', spamScore: 90, isSpam: true },
  ]);
  const now = Math.floor(Date.now() / 1000);
  await insertActivity(
    t.db,
    wallets.flatMap((wallet, w) =>
      Array.from({ length: 6 }, (_, k) => ({
        chainId: 1,
        wallet,
        blockTime: now - 60 * (w * 6 + k),
        blockNumber: 1_000 - (w * 6 + k),
        txIndex: 0,
        logIndex: k,
        txHash: txHash(w * 6 + k),
        type: 'receive',
        assetType: 'erc20',
        tokenAddress: tokens[k % tokens.length]!,
        from: addr('plan-sender'),
        to: wallet,
        value: '1000',
      })),
    ),
  );
  await insertActivity(
    t.db,
    Array.from({ length: 5_000 }, (_, k) => ({
      chainId: 1,
      wallet: heavy,
      blockTime: now - k,
      blockNumber: 10_000 - k,
      txIndex: 0,
      logIndex: 0,
      txHash: txHash(100_000 + k),
      type: 'receive',
      assetType: 'erc20',
      tokenAddress: tokens[k % tokens.length]!,
      from: addr('plan-sender'),
      to: heavy,
      value: '1',
    })),
  );
  await insertNftHoldings(
    t.db,
    wallets.flatMap((wallet, w) =>
      Array.from({ length: 3 }, (_, k) => ({
        chainId: 1,
        wallet,
        contract: nft,
        tokenId: String(w * 3 + k),
        standard: 'erc721' as const,
        balance: '1',
        lastAcquired: now - k,
      })),
    ),
  );
  await insertNftHoldings(
    t.db,
    Array.from({ length: 1_000 }, (_, k) => ({
      chainId: 1,
      wallet: heavy,
      contract: nft,
      tokenId: String(100_000 + k),
      standard: 'erc721' as const,
      balance: '1',
      lastAcquired: now - k,
    })),
  );
  await insertNftHoldings(
    t.db,
    Array.from({ length: 50 }, (_, k) => ({
      chainId: 1,
      wallet: heavy,
      contract: spam,
      tokenId: String(k),
      standard: 'erc721' as const,
      balance: '1',
      lastAcquired: now - k,
    })),
  );
  await t.db.query('analyze');
  // One connection: its prepared statements are the ones inspected.
  db = await openDatabase({ url: t.url!, max: 1, statementTimeoutMs: 0 });
}, 60_000);

afterAll(async () => {
  await db?.close();
  await t?.drop();
});

describe('the reads of a cache miss', () => {
  it('activity: newest first, each row with its token, a page of the busy wallet cut at the limit', async () => {
    for (const [w, wallet] of wallets.entries()) {
      const rows = await selectActivity(db, { wallet, chainIds: [1], limit: 101 });
      expect(rows.map((r) => r.log_index)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(rows.map((r) => r.token?.symbol)).toEqual([0, 1, 2, 3, 4, 5].map((k) => `T${k}`));
      expect(rows.every((r) => r.from_token === null && r.to_token === null)).toBe(true);
      expect(rows[0]!.block_number).toBe(String(1_000 - w * 6));
    }
    const page = await selectActivity(db, { wallet: heavy, chainIds: [1], limit: 20 });
    expect(page.map((r) => r.block_number)).toEqual(
      Array.from({ length: 20 }, (_, k) => String(10_000 - k)),
    );
    expect(page[19]!.token).toMatchObject({ symbol: 'T19', decimals: 18 });
    const filtered = await selectActivity(db, {
      wallet: heavy,
      chainIds: [1],
      tokens: [tokens[7]!],
      limit: 3,
    });
    expect(filtered.map((r) => r.block_number)).toEqual(['9993', '8993', '7993']);
  });

  it('collectibles: the page of holdings with collection and token names, spam hidden', async () => {
    for (const [w, wallet] of wallets.entries()) {
      const rows = await selectCollectibles(db, {
        wallet,
        chainIds: [1],
        hideSpam: true,
        limit: 21,
      });
      expect(rows.map((r) => r.token_id)).toEqual([0, 1, 2].map((k) => String(w * 3 + k)));
      expect(rows.every((r) => r.collection_name === 'Plan NFT' && r.symbol === 'PN')).toBe(true);
    }
    const page = await selectCollectibles(db, {
      wallet: heavy,
      chainIds: [1],
      hideSpam: true,
      after: [1, nft, '100499'],
      limit: 5,
    });
    expect(page.map((r) => r.token_id)).toEqual(['100500', '100501', '100502', '100503', '100504']);
    // The spam collection sorts after the other one: hidden, or shown with its verdict.
    const last: [number, string, string] = [1, nft, '100998'];
    const hidden = await selectCollectibles(db, {
      wallet: heavy,
      chainIds: [1],
      hideSpam: true,
      after: last,
      limit: 5,
    });
    expect(hidden.map((r) => r.token_id)).toEqual(['100999']);
    const shown = await selectCollectibles(db, {
      wallet: heavy,
      chainIds: [1],
      hideSpam: false,
      after: last,
      limit: 3,
    });
    expect(shown.map((r) => [r.contract, r.token_id, r.is_spam, r.collection_name])).toEqual([
      [nft, '100999', false, 'Plan NFT'],
      [spam, '0', true, 'Free Claim'],
      [spam, '1', true, 'Free Claim'],
    ]);
  });

  it('prices at times: one prepared statement, not parsed again per call', async () => {
    const pricing = pricingLookups(db, []);
    for (let i = 0; i < 8; i++) {
      // Distinct times: the memo of settled answers must not hide a call.
      await pricing.pricesAt([{ chainId: 1, token: tokens[0]!, time: new Date(1e12 + i * 1e6) }]);
    }
    const { rows } = await db.query<{ n: string }>(
      `select count(*)::text as n from pg_prepared_statements
        where name like 'api_%' and statement like '%from price_history h%'`,
    );
    expect(Number(rows[0]!.n)).toBe(1);
  });
});
