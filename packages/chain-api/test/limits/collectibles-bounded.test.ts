import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore } from '../../src/keys/key-store.js';
import { startTestApi, type TestApi } from '../support/api-harness.js';
import { addr } from '../support/seed-store.js';
import { watchRss } from './rss-watch.js';

/**
 * One wallet holding 2,500 ERC1155 ids whose metadata rows are what the worker stored before
 * documents were bounded: a 2 MB `data:` token URI, a 200 KB inline image, a 20,000-character
 * description and 200 long attributes each (generated in the database: gigabytes as an
 * answer, little on disk). `collectibles?limit=2500&filter_spam=false` used to build all of it
 * into one answer and the process died. Now each page ends at 16 MiB with a cursor, echoes no
 * `data:` document, and another key's request answers meanwhile.
 */
const chainId = 1;
const whale = addr('data-uri-whale');
const collection = addr('data-uri-items');
const small = addr('small-holder');
const ITEMS = 2_500;
const URI_BYTES = Number(process.env.LIMITS_URI_BYTES ?? 2_000_000);

let api: TestApi;
let otherKey: string;

beforeAll(async () => {
  api = await startTestApi();
  const db = api.t.db;
  otherKey = (await createKeyStore(db).create({ name: 'other' })).key;
  await db.query(
    `insert into nft_holdings (wallet, chain_id, contract, token_id, standard, balance, last_acquired,
                               last_acquired_block, updated_block)
     select $1::text, $2::int, $3::text, g, 'erc1155', 1, now(), 1, 1 from generate_series(1, $4::int) g
     union all
     select $5::text, $2::int, $3::text, g, 'erc1155', 1, now(), 1, 1 from generate_series(1, 2) g`,
    [whale, chainId, collection, ITEMS, small],
  );
  // One row's documents, copied to every id: PostgreSQL copies the stored (compressed) values
  // instead of compressing gigabytes again, so seeding takes a second, not a minute.
  await db.query(
    `create table big_documents as
     select 'data:application/json,{"name":"Item","description":"' || repeat('a', $1::int) || '"}' as uri,
            repeat('d', 20000) as description,
            'data:image/svg+xml;utf8,' || repeat('<g/>', 50000) as image_url,
            (select jsonb_agg(jsonb_build_object('key', 'k' || i, 'value', repeat('v', 1000)))
               from generate_series(1, 200) i) as attributes`,
    [URI_BYTES],
  );
  await db.query(
    `insert into nft_metadata (chain_id, contract, token_id, standard, uri, name, description,
                               image_url, attributes, status)
     select $1::int, $2::text, g, 'erc1155', d.uri, 'Item ' || g, d.description, d.image_url,
            d.attributes, 'ok'
       from big_documents d, generate_series(1, $3::int) g`,
    [chainId, collection, ITEMS],
  );
  await db.query('drop table big_documents');
}, 600_000);

afterAll(async () => {
  await api?.close();
});

interface Page {
  entries: { token_id: string; name?: string; image_url?: string; metadata?: { uri?: string } }[];
  next_offset?: string;
}

describe('collectibles of a wallet with 2,500 megabyte documents', () => {
  it('pages at most 16 MiB at a time, echoes no data: document, and keeps other keys answered', async () => {
    const rss = watchRss();
    const seen = new Set<string>();
    let next: string | undefined;
    let pages = 0;
    let slowest = 0;
    let otherSlowest = 0;
    do {
      const path = `/v1/evm/collectibles/${whale}?chain_ids=${chainId}&limit=2500&filter_spam=false${
        next ? `&offset=${encodeURIComponent(next)}` : ''
      }`;
      const t0 = performance.now();
      const heavy = api.get(path).then(async (res) => ({ res, text: await res.text() }));
      // Another key's request while the heavy one runs.
      const o0 = performance.now();
      const light = await api.get(`/v1/evm/collectibles/${small}?chain_ids=${chainId}`, {
        'x-sim-api-key': otherKey,
      });
      expect(light.status, await light.clone().text()).toBe(200);
      expect(((await light.json()) as Page).entries).toHaveLength(2);
      otherSlowest = Math.max(otherSlowest, performance.now() - o0);
      const { res, text } = await heavy;
      slowest = Math.max(slowest, performance.now() - t0);
      expect(res.status, text.slice(0, 300)).toBe(200);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(16 * 1024 * 1024 + 64 * 1024);
      expect(text).not.toContain('data:');
      const page = JSON.parse(text) as Page;
      expect(page.entries.length).toBeGreaterThan(0);
      for (const e of page.entries) {
        expect(seen.has(e.token_id)).toBe(false);
        seen.add(e.token_id);
      }
      next = page.next_offset;
      pages++;
    } while (next && pages < 50);
    rss.stop();
    expect(seen.size).toBe(ITEMS);
    expect(pages).toBeGreaterThan(1);
    expect(slowest).toBeLessThan(60_000);
    expect(otherSlowest).toBeLessThan(10_000);
    expect(rss.growthMiB()).toBeLessThan(500);
  }, 600_000);

  it('serves the parsed fields: name and a short description, no oversized uri or image', async () => {
    const res = await api.get(`/v1/evm/collectibles/${whale}?chain_ids=${chainId}&limit=1`);
    const page = (await res.json()) as Page & { entries: { description?: string }[] };
    expect(page.entries[0]).toMatchObject({ token_id: '1', name: 'Item 1' });
    expect(page.entries[0]?.description).toHaveLength(20_000);
    expect(page.entries[0]?.image_url).toBeUndefined();
    expect(page.entries[0]?.metadata?.uri).toBeUndefined();
    expect(page.next_offset).toBeDefined();
    // Bad limits are refused, not stretched.
    for (const limit of ['0', '-1', 'abc']) {
      const bad = await api.get(
        `/v1/evm/collectibles/${whale}?chain_ids=${chainId}&limit=${limit}`,
      );
      expect(bad.status).toBe(400);
    }
  });
});
