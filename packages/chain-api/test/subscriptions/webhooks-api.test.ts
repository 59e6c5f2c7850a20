import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api-harness.js';
import { assertMatchesReference } from '../support/reference-schemas.js';
import {
  BASE,
  createBody,
  otherKey,
  testResolver,
  type WebhookClient,
  webhookClient,
} from './webhook-client.js';

/**
 * The management operations over HTTP, called as the peer's guides call them, on PostgreSQL and
 * on PGlite: create, get, list (paged), PATCH, DELETE, secret rotation, and that one key never
 * sees another key's webhooks.
 */

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const SECRET = /^whsec_[A-Za-z0-9_-]{43}$/;

describe.each(['postgres', 'pglite'] as const)('webhooks on %s', (kind) => {
  let api: TestApi;
  let a: WebhookClient;
  let b: WebhookClient;

  beforeAll(async () => {
    api = await startTestApi({ kind, webhooks: { resolve: testResolver() } });
    a = webhookClient(api, api.key);
    b = webhookClient(api, await otherKey(api));
  });
  afterAll(async () => {
    await api?.close();
  });

  async function create(client: WebhookClient, overrides: Record<string, unknown> = {}) {
    const res = await client.send('POST', BASE, createBody(overrides));
    expect(res.status, res.text).toBe(200);
    return res.json as Record<string, unknown> & { id: string; secret: string; created_at: string };
  }

  it('creates a webhook from the guide body; the secret is shown once', async () => {
    const res = await a.send('POST', BASE, createBody());
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const created = res.json;
    assertMatchesReference('Webhook', created);
    expect(created).toMatchObject({
      name: 'USDC Balance Monitor',
      type: 'balances',
      url: 'https://example.com/webhooks/usdc-balances',
      active: true,
      chain_ids: [1, 8453],
      asset_type: 'erc20',
      token_address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
      confirmations: 0,
    });
    expect(created.id).toMatch(UUID_V7);
    expect(created.created_at).toMatch(MICROS);
    expect(created.updated_at).toBe(created.created_at);
    expect(typeof created.team_id).toBe('string');
    expect(created.secret).toMatch(SECRET);
    for (const field of ['transaction_type', 'counterparty', 'activity_type', 'disabled_reason']) {
      expect(created).not.toHaveProperty(field);
    }

    const got = await a.send('GET', `${BASE}/${created.id}`);
    expect(got.status).toBe(200);
    assertMatchesReference('Webhook', got.json);
    const { secret, ...shown } = created;
    expect(got.json).toEqual(shown);
    expect(got.text).not.toContain(secret);
    const list = await a.send('GET', BASE);
    assertMatchesReference('WebhooksList', list.json);
    expect(list.json.webhooks).toContainEqual(shown);
    expect(list.text).not.toContain(secret);

    const addresses = await a.send('GET', `${BASE}/${created.id}/addresses`);
    expect(addresses.status).toBe(200);
    assertMatchesReference('AddressesList', addresses.json);
    expect(addresses.json).toEqual({ addresses: ['0xd8da6bf26964af9d7eed9e03e53415d37aa96045'] });

    // Stored as issued, for the delivery worker to sign with.
    const { rows } = await api.t.db.query<{ secret: string; key_id: string }>(
      'select secret, key_id from webhooks where id = $1',
      [created.id],
    );
    expect(rows[0]).toEqual({ secret, key_id: created.team_id });
  });

  it('creates each type with its own filters', async () => {
    const tx = await create(a, {
      type: 'transactions',
      transaction_type: 'receiver',
      counterparty: '0x3F60008Dfd0EfC03F476D9B489D6C5B13B3eBF2C',
      asset_type: null,
      token_address: null,
      chain_ids: null,
    });
    expect(tx).toMatchObject({
      type: 'transactions',
      transaction_type: 'receiver',
      counterparty: '0x3f60008dfd0efc03f476d9b489d6c5b13b3ebf2c',
      chain_ids: null,
    });
    expect(tx).not.toHaveProperty('asset_type');
    const act = await create(a, { type: 'activities', activity_type: 'swap', confirmations: 12 });
    expect(act).toMatchObject({ type: 'activities', activity_type: 'swap', confirmations: 12 });
    const { chain_ids: _omitted, ...noChains } = createBody();
    const all = await a.send('POST', BASE, noChains);
    expect(all.json.chain_ids).toBeNull();
    assertMatchesReference('Webhook', all.json);
  });

  it("keeps each key's webhooks to itself: another key gets 404 everywhere", async () => {
    const mine = await create(a, { name: 'A private' });
    const path = `${BASE}/${mine.id}`;
    const attempts = [
      await b.send('GET', path),
      await b.send('PATCH', path, { name: 'stolen', active: false }),
      await b.send('DELETE', path),
      await b.send('GET', `${path}/addresses`),
      await b.send('PUT', `${path}/addresses`, { addresses: [] }),
      await b.send('PATCH', `${path}/addresses`, { remove_addresses: createBody().addresses }),
      await b.send('PATCH', `${path}/addresses`, { add_addresses: [] }),
      await b.send('POST', `${path}/secret/rotate`),
    ];
    for (const res of attempts) {
      expect(res.status, res.text).toBe(404);
      expect(res.contentType).toMatch(/^text\/plain/);
      expect(res.text).toBe(`Webhook ${mine.id} not found`);
    }
    const unknown = await a.send('GET', `${BASE}/019a81c2-d84b-7141-85e8-86b072a59142`);
    expect(unknown.status).toBe(404);
    expect(unknown.text).toBe('Webhook 019a81c2-d84b-7141-85e8-86b072a59142 not found');

    const theirs = await create(b, { name: 'B own' });
    const listB = await b.send('GET', BASE);
    expect(listB.json.webhooks.map((w: { id: string }) => w.id)).toEqual([theirs.id]);
    const listA = await a.send('GET', BASE);
    const idsA = listA.json.webhooks.map((w: { id: string }) => w.id);
    expect(idsA).toContain(mine.id);
    expect(idsA).not.toContain(theirs.id);

    const after = await a.send('GET', path);
    expect(after.json).toMatchObject({ name: 'A private', active: true });
    const addresses = await a.send('GET', `${path}/addresses`);
    expect(addresses.json.addresses).toHaveLength(1);
  });

  it('answers 400 for a malformed id and 401 without a key', async () => {
    const bad = await a.send('GET', `${BASE}/not-a-uuid`);
    expect(bad.status).toBe(400);
    expect(bad.contentType).toMatch(/^text\/plain/);
    expect(bad.text).toMatch(/^Invalid URL: UUID parsing failed: `webhookId` "not-a-uuid"/);
    const anonymous = await fetch(`${api.url}${BASE}`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: expect.stringMatching(/API Key/) });
    const wrongKey = await fetch(`${api.url}${BASE}`, { headers: { 'x-sim-api-key': 'nope' } });
    expect(wrongKey.status).toBe(401);
  });

  it('pages webhooks with limit and next_offset, oldest first, no duplicates', async () => {
    const c = webhookClient(api, await otherKey(api, 'pager'));
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await create(c, { name: `page ${i}` })).id);
    const seen: string[] = [];
    let offset: string | undefined;
    let pages = 0;
    do {
      const query = `?limit=3${offset ? `&offset=${encodeURIComponent(offset)}` : ''}`;
      const res = await c.send('GET', `${BASE}${query}`);
      expect(res.status, res.text).toBe(200);
      assertMatchesReference('WebhooksList', res.json);
      seen.push(...res.json.webhooks.map((w: { id: string }) => w.id));
      offset = res.json.next_offset;
      pages++;
    } while (offset);
    expect(pages).toBe(3);
    expect(seen).toEqual(ids);
    const whole = await c.send('GET', BASE);
    expect(whole.json.webhooks).toHaveLength(7);
    expect(whole.json).not.toHaveProperty('next_offset');

    const first = await c.send('GET', `${BASE}?limit=3`);
    const foreign = await a.send('GET', `${BASE}?offset=${first.json.next_offset}`);
    expect(foreign.status).toBe(400);
    expect(foreign.text).toMatch(/^Invalid parameter 'offset'/);
    const zero = await c.send('GET', `${BASE}?limit=0`);
    expect(zero.status).toBe(400);
    expect(zero.contentType).toMatch(/^text\/plain/);
    expect(zero.text).toMatch(/'limit'/);
  });

  it('pauses and resumes with PATCH active; resuming clears disabled_reason', async () => {
    const w = await create(a);
    const paused = await a.send('PATCH', `${BASE}/${w.id}`, { active: false });
    expect(paused.status).toBe(200);
    assertMatchesReference('Webhook', paused.json);
    expect(paused.json.active).toBe(false);
    expect(paused.json.updated_at >= w.created_at).toBe(true);
    expect((await a.send('GET', `${BASE}/${w.id}`)).json.active).toBe(false);

    // What the delivery worker records when it gives up on an endpoint.
    await api.t.db.query(
      `update webhooks set disabled_reason = 'endpoint failed for 24 h', failing_since = now()
       where id = $1`,
      [w.id],
    );
    expect((await a.send('GET', `${BASE}/${w.id}`)).json.disabled_reason).toBe(
      'endpoint failed for 24 h',
    );
    const resumed = await a.send('PATCH', `${BASE}/${w.id}`, { active: true });
    expect(resumed.json.active).toBe(true);
    expect(resumed.json).not.toHaveProperty('disabled_reason');
    const { rows } = await api.t.db.query('select failing_since from webhooks where id = $1', [
      w.id,
    ]);
    expect(rows[0]).toEqual({ failing_since: null });
  });

  it('updates name, url, filters and confirmations; a null filter clears it', async () => {
    const w = await create(a);
    const res = await a.send('PATCH', `${BASE}/${w.id}`, {
      name: 'Renamed',
      url: 'https://new-endpoint.example.com/webhooks',
      chain_ids: [8453, 1, 10, 1],
      confirmations: 12,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      name: 'Renamed',
      url: 'https://new-endpoint.example.com/webhooks',
      chain_ids: [1, 10, 8453],
      confirmations: 12,
      asset_type: 'erc20',
    });
    expect(res.json).not.toHaveProperty('secret');
    const cleared = await a.send('PATCH', `${BASE}/${w.id}`, {
      chain_ids: null,
      asset_type: null,
      name: null,
    });
    expect(cleared.json).toMatchObject({ name: 'Renamed', chain_ids: null });
    expect(cleared.json).not.toHaveProperty('asset_type');
    const same = await a.send('PATCH', `${BASE}/${w.id}`, {});
    expect(same.json).toEqual(cleared.json);
  });

  it('deletes: 200 with no body, then 404 and the address list gone', async () => {
    const w = await create(a);
    const res = await a.send('DELETE', `${BASE}/${w.id}`);
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect((await a.send('GET', `${BASE}/${w.id}`)).status).toBe(404);
    expect((await a.send('GET', `${BASE}/${w.id}/addresses`)).status).toBe(404);
    expect((await a.send('DELETE', `${BASE}/${w.id}`)).status).toBe(404);
    const { rows } = await api.t.db.query(
      'select count(*)::int as n from webhook_addresses where webhook_id = $1',
      [w.id],
    );
    expect(rows[0]).toEqual({ n: 0 });
  });

  it('rotates the secret: new one shown once, the previous kept for the grace period', async () => {
    const w = await create(a);
    const before = Date.now();
    const res = await a.send('POST', `${BASE}/${w.id}/secret/rotate`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.json.id).toBe(w.id);
    expect(res.json.secret).toMatch(SECRET);
    expect(res.json.secret).not.toBe(w.secret);
    const expires = Date.parse(res.json.previous_secret_expires_at);
    expect(expires).toBeGreaterThan(before + 86_400_000 - 60_000);
    expect(expires).toBeLessThan(Date.now() + 86_400_000 + 60_000);
    const stored = async () =>
      (
        await api.t.db.query<{ secret: string; previous_secret: string | null }>(
          'select secret, previous_secret from webhooks where id = $1',
          [w.id],
        )
      ).rows[0];
    expect(await stored()).toEqual({ secret: res.json.secret, previous_secret: w.secret });
    const got = await a.send('GET', `${BASE}/${w.id}`);
    expect(got.text).not.toContain(res.json.secret);
    expect(got.json).not.toHaveProperty('secret');

    const short = await a.send('POST', `${BASE}/${w.id}/secret/rotate`, {
      grace_period_seconds: 3600,
    });
    expect(Date.parse(short.json.previous_secret_expires_at)).toBeLessThan(
      Date.now() + 3_600_000 + 60_000,
    );
    expect(await stored()).toEqual({ secret: short.json.secret, previous_secret: res.json.secret });
    const now = await a.send('POST', `${BASE}/${w.id}/secret/rotate`, { grace_period_seconds: 0 });
    expect(now.json.previous_secret_expires_at).toBeNull();
    expect(await stored()).toEqual({ secret: now.json.secret, previous_secret: null });

    for (const grace of [-1, 1.5, 'soon', 10 ** 9]) {
      const bad = await a.send('POST', `${BASE}/${w.id}/secret/rotate`, {
        grace_period_seconds: grace,
      });
      expect(bad.status).toBe(422);
      expect(bad.text).toContain('`grace_period_seconds`');
    }
  });

  it('documents every operation in /openapi.json', async () => {
    const doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const op = (path: string, method: string) => doc.paths[path]?.[method]?.operationId;
    expect(op(BASE, 'post')).toBe('createWebhook');
    expect(op(BASE, 'get')).toBe('listWebhooks');
    expect(op(`${BASE}/{webhookId}`, 'get')).toBe('getWebhook');
    expect(op(`${BASE}/{webhookId}`, 'patch')).toBe('updateWebhook');
    expect(op(`${BASE}/{webhookId}`, 'delete')).toBe('deleteWebhook');
    expect(op(`${BASE}/{webhookId}/addresses`, 'get')).toBe('getWebhookAddresses');
    expect(op(`${BASE}/{webhookId}/addresses`, 'put')).toBe('replaceWebhookAddresses');
    expect(op(`${BASE}/{webhookId}/addresses`, 'patch')).toBe('updateWebhookAddresses');
    expect(op(`${BASE}/{webhookId}/secret/rotate`, 'post')).toBe('rotateWebhookSecret');
  });
});
