import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api-harness.js';
import { assertMatchesReference } from '../support/reference-schemas.js';
import {
  addresses,
  BASE,
  createBody,
  otherKey,
  testResolver,
  type WebhookClient,
  webhookClient,
} from './webhook-client.js';

/**
 * Address lists over HTTP, on PostgreSQL and PGlite: 10,000 per webhook (created, paged,
 * replaced, changed), the cap, many webhooks on one address, and concurrent changes of one list.
 */

describe.each(['postgres', 'pglite'] as const)('webhook addresses on %s', (kind) => {
  let api: TestApi;
  let a: WebhookClient;

  beforeAll(async () => {
    api = await startTestApi({ kind, webhooks: { resolve: testResolver() } });
    a = webhookClient(api, api.key);
  });
  afterAll(async () => {
    await api?.close();
  });

  async function create(list: string[], client = a) {
    const res = await client.send('POST', BASE, createBody({ addresses: list }));
    expect(res.status, res.text).toBe(200);
    return res.json.id as string;
  }

  async function allAddresses(
    id: string,
    limit: number,
  ): Promise<{ list: string[]; pages: number }> {
    const list: string[] = [];
    let offset: string | undefined;
    let pages = 0;
    do {
      const query = `?limit=${limit}${offset ? `&offset=${encodeURIComponent(offset)}` : ''}`;
      const res = await a.send('GET', `${BASE}/${id}/addresses${query}`);
      expect(res.status, res.text).toBe(200);
      list.push(...res.json.addresses);
      offset = res.json.next_offset;
      pages++;
    } while (offset);
    return { list, pages };
  }

  async function storedCount(id: string): Promise<number> {
    const { rows } = await api.t.db.query<{ n: number }>(
      'select count(*)::int as n from webhook_addresses where webhook_id = $1',
      [id],
    );
    return rows[0]?.n ?? -1;
  }

  it('takes 10,000 addresses in any case and pages them all without duplicates', async () => {
    const expected = addresses(10_000, 1);
    // Mixed case and a repeat: stored lower-case, once.
    const given = expected.map((x, i) => (i % 2 ? x.toUpperCase().replace('0X', '0x') : x));
    const id = await create([...given, given[5] as string]);
    expect(await storedCount(id)).toBe(10_000);

    const walked = await allAddresses(id, 1_000);
    expect(walked.pages).toBe(10);
    expect(walked.list).toEqual([...expected].sort());
    const first = await a.send('GET', `${BASE}/${id}/addresses`);
    assertMatchesReference('AddressesList', first.json);
    expect(first.json.addresses).toHaveLength(100);
    expect(typeof first.json.next_offset).toBe('string');
    const whole = await a.send('GET', `${BASE}/${id}/addresses?limit=10000`);
    expect(whole.json.addresses).toHaveLength(10_000);
    expect(whole.json).not.toHaveProperty('next_offset');

    // A cursor of another webhook's list is refused.
    const other = await create(addresses(3, 2));
    const foreign = await a.send(
      'GET',
      `${BASE}/${other}/addresses?offset=${encodeURIComponent(first.json.next_offset)}`,
    );
    expect(foreign.status).toBe(400);

    // At the cap: one more is a 422 naming the field, and nothing changes.
    const over = await a.send('PATCH', `${BASE}/${id}/addresses`, {
      add_addresses: addresses(1, 3),
    });
    expect(over.status).toBe(422);
    expect(over.contentType).toMatch(/^text\/plain/);
    expect(over.text).toBe(
      'Invalid `add_addresses`: the webhook would watch 10001 addresses; at most 10000 per webhook',
    );
    expect(await storedCount(id)).toBe(10_000);
    // Removing as many as are added stays within it.
    const swap = await a.send('PATCH', `${BASE}/${id}/addresses`, {
      add_addresses: addresses(10, 3),
      remove_addresses: expected.slice(0, 10),
    });
    expect(swap.status, swap.text).toBe(200);
    expect(swap.text).toBe('');
    expect(await storedCount(id)).toBe(10_000);

    const tooMany = addresses(10_001, 4);
    const put = await a.send('PUT', `${BASE}/${id}/addresses`, { addresses: tooMany });
    expect(put.status).toBe(422);
    expect(put.text).toBe('Invalid `addresses`: at most 10000 addresses per webhook, got 10001');
    const post = await a.send('POST', BASE, createBody({ addresses: tooMany }));
    expect(post.status).toBe(422);
    expect(post.text).toContain('`addresses`');
  });

  it('replaces the list with PUT: 200 with no body, exactly the new list', async () => {
    const id = await create(addresses(5, 5));
    const next = [...addresses(3, 5).slice(1), ...addresses(2, 6)];
    const res = await a.send('PUT', `${BASE}/${id}/addresses`, {
      addresses: [...next, next[0]?.toUpperCase().replace('0X', '0x')],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe('');
    expect((await allAddresses(id, 100)).list).toEqual([...next].sort());
    const big = addresses(10_000, 7);
    expect((await a.send('PUT', `${BASE}/${id}/addresses`, { addresses: big })).status).toBe(200);
    expect(await storedCount(id)).toBe(10_000);
    expect((await a.send('PUT', `${BASE}/${id}/addresses`, { addresses: [] })).status).toBe(200);
    expect(await storedCount(id)).toBe(0);
  });

  it('adds and removes with PATCH: repeats and unknown removals are harmless', async () => {
    const [x, y, z, w] = addresses(4, 8) as [string, string, string, string];
    const id = await create([x, y]);
    const res = await a.send('PATCH', `${BASE}/${id}/addresses`, {
      add_addresses: [z.toUpperCase().replace('0X', '0x'), y],
      remove_addresses: [x, w],
    });
    expect(res.status, res.text).toBe(200);
    expect((await allAddresses(id, 100)).list).toEqual([y, z].sort());
    expect((await a.send('PATCH', `${BASE}/${id}/addresses`, { add_addresses: [w] })).status).toBe(
      200,
    );
    expect(
      (await a.send('PATCH', `${BASE}/${id}/addresses`, { remove_addresses: [y] })).status,
    ).toBe(200);
    expect((await allAddresses(id, 100)).list).toEqual([w, z].sort());
    expect((await a.send('PATCH', `${BASE}/${id}/addresses`, {})).status).toBe(200);
  });

  it('lets many webhooks of several keys watch the same address', async () => {
    const shared = addresses(1, 9)[0] as string;
    const b = webhookClient(api, await otherKey(api));
    const ids: string[] = [];
    for (let i = 0; i < 24; i++)
      ids.push(await create([shared, ...addresses(2, 10 + i)], i % 2 ? b : a));
    const { rows } = await api.t.db.query<{ n: number }>(
      'select count(*)::int as n from webhook_addresses where address = $1',
      [shared],
    );
    expect(rows[0]?.n).toBe(24);
    expect((await a.send('DELETE', `${BASE}/${ids[0]}`)).status).toBe(200);
    const left = await b.send('GET', `${BASE}/${ids[1]}/addresses`);
    expect(left.json.addresses).toContain(shared);
  });

  it('applies concurrent changes of one list one after another, never past the cap', async () => {
    const id = await create([]);
    const adds = Array.from({ length: 8 }, (_, i) =>
      a.send('PATCH', `${BASE}/${id}/addresses`, { add_addresses: addresses(100, 30 + i) }),
    );
    expect((await Promise.all(adds)).map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(await storedCount(id)).toBe(800);

    const near = await create(addresses(9_950, 40));
    const racing = Array.from({ length: 5 }, (_, i) =>
      a.send('PATCH', `${BASE}/${near}/addresses`, { add_addresses: addresses(20, 50 + i) }),
    );
    const statuses = (await Promise.all(racing)).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 422, 422, 422]);
    expect(await storedCount(near)).toBe(9_990);
  });
});
