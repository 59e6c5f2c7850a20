import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore } from '../src/keys/key-store.js';
import { startTestApi, type TestApi } from './support/api-harness.js';
import { assertMatchesReference, referenceAvailable } from './support/reference-schemas.js';
import { addr } from './support/seed-store.js';

let api: TestApi;
let limited: TestApi;
const logLines: string[] = [];

beforeAll(async () => {
  const logger = pino(
    {
      level: 'info',
      redact: {
        paths: ['req.headers["x-sim-api-key"]', 'req.headers.authorization'],
        censor: '[redacted]',
      },
    },
    new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    }),
  );
  api = await startTestApi({ logger, keyCacheTtlMs: 0 });
  limited = await startTestApi({ rateLimit: { max: 3, windowMs: 60_000 } });
});

afterAll(async () => {
  await api?.close();
  await limited?.close();
});

const wallet = addr('server-wallet');

describe('public endpoints', () => {
  it('supported-chains needs no key, matches the reference, and is cacheable', async () => {
    const res = await api.get('/v1/evm/supported-chains', {});
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    const body = (await res.json()) as { chains: Record<string, unknown>[] };
    if (referenceAvailable()) assertMatchesReference('ChainsResponse', body);
    expect(body.chains.map((c) => [c.id, c.chain_id, c.name])).toEqual([
      [1, 1, 'ethereum'],
      [8453, 8453, 'base'],
      [31337, 31337, expect.any(String)],
    ]);
    expect(body.chains[0]).toMatchObject({
      tags: ['default', 'mainnet'],
      endpoints: ['activity', 'balances', 'collectibles'],
    });
    const again = await api.get('/v1/evm/supported-chains', {
      'if-none-match': res.headers.get('etag')!,
    });
    expect(again.status).toBe(304);
  });

  it('health reports each chain and turns to syncing while one is not ready', async () => {
    const ok = await api.get('/health', {});
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      status: 'ok',
      database: 'ok',
      chains: [
        expect.objectContaining({
          chain_id: 1,
          name: 'ethereum',
          head_block: 100,
          indexed_block: 100,
          lag_seconds: 0,
          ready: true,
        }),
        expect.anything(),
        expect.anything(),
      ],
    });
    api.setReady(8453, false);
    try {
      expect(await (await api.get('/health', {})).json()).toMatchObject({ status: 'syncing' });
    } finally {
      api.setReady(8453, true);
    }
  });

  it('serves the OpenAPI document generated from the route schemas, and the docs UI', async () => {
    const res = await api.get('/openapi.json', {});
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<
        string,
        { get: { parameters: { name: string; in: string }[]; responses: Record<string, unknown> } }
      >;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(doc.openapi).toBe('3.0.3');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/beta/evm/subscriptions/webhooks',
      '/beta/evm/subscriptions/webhooks/{webhookId}',
      '/beta/evm/subscriptions/webhooks/{webhookId}/addresses',
      '/beta/evm/subscriptions/webhooks/{webhookId}/deliveries',
      '/beta/evm/subscriptions/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
      '/beta/evm/subscriptions/webhooks/{webhookId}/secret/rotate',
      '/health',
      '/v1/evm/activity/{address}',
      '/v1/evm/balances/{address}',
      '/v1/evm/balances/{address}/stablecoins',
      '/v1/evm/balances/{address}/token/{token_address}',
      '/v1/evm/collectibles/{address}',
      '/v1/evm/defi/positions/{address}',
      '/v1/evm/defi/supported-protocols',
      '/v1/evm/portfolio/{address}',
      '/v1/evm/search/tokens',
      '/v1/evm/supported-chains',
      '/v1/evm/token-holders/{chain_id}/{address}',
      '/v1/evm/token-info/{address}',
      '/v1/evm/transactions/{address}',
    ]);
    const activity = doc.paths['/v1/evm/activity/{address}']!.get;
    expect(activity.parameters.map((p) => `${p.in}:${p.name}`).sort()).toEqual(
      [
        'path:address',
        'query:activity_type',
        'query:asset_type',
        'query:chain_ids',
        'query:limit',
        'query:offset',
        'query:token_address',
      ].sort(),
    );
    expect(Object.keys(activity.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '402',
      '429',
      '500',
    ]);
    expect(Object.keys(doc.paths['/v1/evm/balances/{address}']!.get.responses)).toContain('503');
    expect(doc.components.securitySchemes).toHaveProperty('ApiKeyAuth', {
      type: 'apiKey',
      in: 'header',
      name: 'X-Sim-Api-Key',
    });
    const docs = await api.get('/docs', {});
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
  });

  it('unknown routes are 404 {error}', async () => {
    const res = await api.get('/v2/evm/nothing', {});
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'Not found: GET /v2/evm/nothing' });
  });
});

describe('requests', () => {
  it('echoes a well-formed X-Request-Id and makes one up otherwise', async () => {
    const given = await api.get('/health', { 'x-request-id': 'trace-123' });
    expect(given.headers.get('x-request-id')).toBe('trace-123');
    const bad = await api.get('/health', { 'x-request-id': 'has spaces and "quotes"' });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('HEAD works on the API routes', async () => {
    const res = await fetch(`${api.url}/v1/evm/activity/${wallet}`, {
      method: 'HEAD',
      headers: { 'x-sim-api-key': api.key },
    });
    expect(res.status).toBe(200);
  });

  it('never writes API keys to the logs', async () => {
    await api.get(`/v1/evm/balances/${wallet}`);
    await api.get(`/v1/evm/balances/${wallet}`, { authorization: `Bearer ${api.key}` });
    await api.get(`/v1/evm/balances/${wallet}`, {
      'x-sim-api-key': 'sluice_guessed_key_0123456789',
    });
    await api.get(`/v1/evm/activity/${wallet}?limit=nope`);
    expect(logLines.length).toBeGreaterThan(4);
    const all = logLines.join('\n');
    expect(all).not.toContain(api.key);
    expect(all).not.toContain('sluice_guessed_key_0123456789');
  });

  it('answers 500 in each endpoint format without leaking the cause', async () => {
    await api.t.db.query('alter table activity rename to activity_gone');
    await api.t.db.query('alter table erc20_balances rename to erc20_gone');
    await api.t.db.query('alter table nft_holdings rename to nft_gone');
    try {
      const activity = await api.get(`/v1/evm/activity/${wallet}`);
      expect(activity.status).toBe(500);
      expect(activity.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await activity.text()).toBe('Internal server error');
      const balances = await api.get(`/v1/evm/balances/${wallet}`);
      expect(balances.status).toBe(500);
      expect(await balances.json()).toEqual({ message: 'Internal server error' });
      const collectibles = await api.get(`/v1/evm/collectibles/${wallet}`);
      expect(collectibles.status).toBe(500);
      expect(await collectibles.json()).toEqual({ error: 'Internal server error' });
      expect(logLines.join('\n')).toMatch(/activity/);
    } finally {
      await api.t.db.query('alter table activity_gone rename to activity');
      await api.t.db.query('alter table erc20_gone rename to erc20_balances');
      await api.t.db.query('alter table nft_gone rename to nft_holdings');
    }
  });
});

describe('rate limit (in-process)', () => {
  it('429 {error} referring to sales with Retry-After, per key', async () => {
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await limited.get(`/v1/evm/activity/${wallet}`);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const retryAfter = Number(last!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const body = (await last!.json()) as { error: string };
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toMatch(/contact sales/);
    // Same answer format on every endpoint, even the plain-text one.
    const balances = await limited.get(`/v1/evm/balances/${wallet}`);
    expect(balances.status).toBe(429);
    expect(await balances.json()).toEqual({ error: expect.stringMatching(/sales/) });
    // Another key has its own budget.
    const { key } = await createKeyStore(limited.t.db).create({ name: 'other' });
    expect((await limited.get(`/v1/evm/activity/${wallet}`, { 'x-sim-api-key': key })).status).toBe(
      200,
    );
  });

  it('a key with its own limit gets that limit', async () => {
    const { key } = await createKeyStore(limited.t.db).create({ name: 'tight', rateLimit: 1 });
    const headers = { 'x-sim-api-key': key };
    expect((await limited.get(`/v1/evm/activity/${wallet}`, headers)).status).toBe(200);
    expect((await limited.get(`/v1/evm/activity/${wallet}`, headers)).status).toBe(429);
  });

  it('revoked keys stop working (here with no verification cache)', async () => {
    const store = createKeyStore(api.t.db);
    const { key, record } = await store.create({ name: 'short-lived' });
    expect((await api.get(`/v1/evm/activity/${wallet}`, { 'x-sim-api-key': key })).status).toBe(
      200,
    );
    await store.revoke(record.id);
    const after = await api.get(`/v1/evm/activity/${wallet}`, { 'x-sim-api-key': key });
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual({ error: 'invalid API Key' });
    expect(await store.list()).not.toContainEqual(expect.objectContaining({ id: record.id }));
    expect(await store.list({ includeRevoked: true })).toContainEqual(
      expect.objectContaining({ id: record.id, revokedAt: expect.any(String) }),
    );
  });
});
