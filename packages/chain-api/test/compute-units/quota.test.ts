import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore } from '../../src/keys/key-store.js';
import { startTestApi, type TestApi } from '../support/api-harness.js';
import { addr } from '../support/seed-store.js';

/**
 * Per-key quotas: a request that would pass its key's quota answers 402 `{error}` (JSON, the
 * gateway's body) while other keys go on; reservations are atomic, so concurrent requests never
 * overshoot; requests the API rejects give their units back.
 */

let api: TestApi;
const wallet = addr('quota-wallet');
// balances with chain_ids=1: 1 unit; activity: 3; transactions: 1.
const oneUnit = `/v1/evm/balances/${wallet}?chain_ids=1`;

beforeAll(async () => {
  api = await startTestApi({ keyCacheTtlMs: 0 });
}, 120_000);
afterAll(async () => {
  await api?.close();
});

const keys = () => createKeyStore(api.t.db);
const used = async (keyId: string) => {
  const { rows } = await api.t.db.query<{ compute_units: string }>(
    'select sum(compute_units) as compute_units from api_key_usage where key_id = $1',
    [keyId],
  );
  return Number(rows[0]?.compute_units ?? 0);
};
const call = async (path: string, key: string) => {
  const res = await fetch(`${api.url}${path}`, { headers: { 'x-sim-api-key': key } });
  return { res, text: await res.text() };
};

describe('compute-unit quotas', () => {
  it('lets exactly the quota through when 50 requests arrive at once; the rest get 402 JSON', async () => {
    const { key, record } = await keys().create({ name: 'q10', cuQuota: 10 });
    const answers = await Promise.all(Array.from({ length: 50 }, () => call(oneUnit, key)));
    const statuses = answers.map((a) => a.res.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(40);
    const refused = answers.find((a) => a.res.status === 402)!;
    expect(refused.res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = JSON.parse(refused.text) as { error: string };
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toMatch(
      /^Compute unit quota exceeded \(10 per month\)\. Please contact sales to increase your quota/,
    );
    expect(Number(refused.res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.res.headers.get('x-compute-units')).toBeNull();
    expect(await used(record.id)).toBe(10);

    // The key without a quota, and another key with room, are unaffected.
    expect((await call(oneUnit, api.key)).res.status).toBe(200);
    const other = await keys().create({ name: 'q5', cuQuota: 5, cuPeriod: 'day' });
    expect((await call(oneUnit, other.key)).res.status).toBe(200);
    // Free endpoints stay free for an exhausted key; 429 is still about speed, not volume.
    expect((await call('/v1/evm/defi/supported-protocols', key)).res.status).toBe(200);
  }, 60_000);

  it('charges by price: 3-unit activity, then what is left; rejected requests cost nothing', async () => {
    const { key, record } = await keys().create({ name: 'q5', cuQuota: 5, cuPeriod: 'day' });
    expect((await call(`/v1/evm/activity/${wallet}`, key)).res.status).toBe(200); // 3
    const second = await call(`/v1/evm/activity/${wallet}`, key); // 3 + 3 > 5
    expect(second.res.status).toBe(402);
    expect(JSON.parse(second.text).error).toContain('5 per day');
    // Rejected requests give their units back: a bad address (1 unit reserved, then returned)...
    expect((await call('/v1/evm/balances/0x12?chain_ids=1', key)).res.status).toBe(400);
    // ...and a bad chain_ids (priced at 0).
    expect((await call(`/v1/evm/balances/${wallet}?chain_ids=nosuchtag`, key)).res.status).toBe(
      400,
    );
    expect((await call(`/v1/evm/transactions/${wallet}`, key)).res.status).toBe(200); // 4
    expect((await call(oneUnit, key)).res.status).toBe(200); // 5
    expect((await call(oneUnit, key)).res.status).toBe(402);
    expect(await used(record.id)).toBe(5);

    // Raising the quota (or removing it) applies to the next request.
    await keys().updateQuota(record.id, { cuQuota: 6 });
    expect((await call(oneUnit, key)).res.status).toBe(200);
    expect((await call(oneUnit, key)).res.status).toBe(402);
    await keys().updateQuota(record.id, { cuQuota: null });
    expect((await call(`/v1/evm/activity/${wallet}`, key)).res.status).toBe(200);
    // A quota of 0 refuses every paid request.
    await keys().updateQuota(record.id, { cuQuota: 0 });
    expect((await call(`/v1/evm/transactions/${wallet}`, key)).res.status).toBe(402);
  }, 60_000);

  it('counts a day-period key in its own day and a month-period key in its month', async () => {
    const day = await keys().create({ name: 'day', cuQuota: 100, cuPeriod: 'day' });
    const month = await keys().create({ name: 'month', cuQuota: 100 });
    expect((await call(oneUnit, day.key)).res.status).toBe(200);
    expect((await call(oneUnit, month.key)).res.status).toBe(200);
    const { rows } = await api.t.db.query<{ key_id: string; period: string; period_start: Date }>(
      'select key_id, period, period_start from api_key_usage where key_id = any($1)',
      [[day.record.id, month.record.id]],
    );
    const now = new Date();
    const byKey = new Map(rows.map((r) => [r.key_id, r]));
    expect(byKey.get(day.record.id)).toMatchObject({ period: 'day' });
    expect(new Date(byKey.get(day.record.id)!.period_start).toISOString()).toBe(
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString(),
    );
    expect(new Date(byKey.get(month.record.id)!.period_start).toISOString()).toBe(
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
    );
  }, 60_000);
});
