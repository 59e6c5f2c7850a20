import { migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageSlot } from '../../src/keys/usage-period.js';
import { createDbUsageStore } from '../../src/keys/usage-store.js';
import { storeMigrations } from '../../src/store/migrations.js';
import { runCli } from '../support/cli-process.js';

/** `sluice-chain keys create|update|usage` with quotas, run as processes against PostgreSQL. */

let t: TestDatabase;
const sluice = (args: string[]) => runCli(args, { DATABASE_URL: t.url! });

beforeAll(async () => {
  t = await createTestDatabase('postgres');
  await migrate(t.db, storeMigrations);
}, 120_000);
afterAll(async () => {
  await t?.drop();
});

const idOf = (stdout: string) => /id (key_[0-9a-f]+)/.exec(stdout)?.[1] as string;

describe('keys CLI with compute-unit quotas', () => {
  it('creates keys with a quota and period, changes them, and lists them', async () => {
    const created = await sluice([
      'keys',
      'create',
      '--name',
      'metered',
      '--cu-quota',
      '1000',
      '--cu-period',
      'day',
    ]);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('cu=1000/day');
    const id = idOf(created.stdout);
    const row = async () =>
      (
        await t.db.query<{ cu_quota: string | null; cu_period: string }>(
          'select cu_quota, cu_period from api_keys where id = $1',
          [id],
        )
      ).rows[0];
    expect(await row()).toEqual({ cu_quota: '1000', cu_period: 'day' });

    const plain = await sluice(['keys', 'create', '--name', 'plain']);
    expect(plain.stdout).toContain('cu=unlimited');

    const monthly = await sluice(['keys', 'update', id, '--cu-period', 'month']);
    expect(monthly.code).toBe(0);
    expect(monthly.stdout).toContain(`updated ${id}: cu=1000/month`);
    expect(await row()).toEqual({ cu_quota: '1000', cu_period: 'month' });
    expect((await sluice(['keys', 'update', id, '--cu-quota', '50'])).code).toBe(0);
    expect(await row()).toEqual({ cu_quota: '50', cu_period: 'month' });
    const unlimited = await sluice(['keys', 'update', id, '--cu-quota', 'none']);
    expect(unlimited.stdout).toContain('cu=unlimited');
    expect(await row()).toEqual({ cu_quota: null, cu_period: 'month' });
    expect((await sluice(['keys', 'update', id, '--cu-quota', '0'])).code).toBe(0);
    expect((await row())?.cu_quota).toBe('0');

    const listed = await sluice(['keys', 'list']);
    expect(listed.stdout).toMatch(new RegExp(`${id}.*cu=0/month`));
    expect(listed.stdout).toMatch(new RegExp(`${idOf(plain.stdout)}.*cu=unlimited`));
  }, 120_000);

  it('refuses bad quotas, periods and ids with a message and no change', async () => {
    const created = await sluice(['keys', 'create', '--cu-quota', '7']);
    const id = idOf(created.stdout);
    const bad = await Promise.all([
      sluice(['keys', 'create', '--cu-quota=-1']),
      sluice(['keys', 'create', '--cu-quota', 'lots']),
      sluice(['keys', 'create', '--cu-quota', '1e3']),
      sluice(['keys', 'create', '--cu-period', 'week']),
      sluice(['keys', 'update', id, '--cu-quota', '2.5']),
      sluice(['keys', 'update', id]),
      sluice(['keys', 'update', '--cu-quota', '5']),
      sluice(['keys', 'usage', 'extra']),
      sluice(['keys', 'create', '--cu-quota']),
      sluice(['keys', 'create', '--cu-quota', '-1']),
    ]);
    for (const result of bad) expect(result.code).toBe(2);
    expect(bad[0]!.stdout).toContain('--cu-quota must be a whole number');
    expect(bad[3]!.stdout).toContain('--cu-period must be day or month');
    expect(bad[5]!.stdout).toContain('needs --cu-quota and/or --cu-period');
    expect(bad[9]!.stdout).toContain("'--cu-quota'");
    const unknown = await sluice(['keys', 'update', 'key_000000000000', '--cu-quota', '5']);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain('no active key with id key_000000000000');
    // A revoked key cannot be changed.
    expect((await sluice(['keys', 'revoke', id])).code).toBe(0);
    expect((await sluice(['keys', 'update', id, '--cu-quota', '5'])).code).toBe(1);
    const { rows } = await t.db.query('select cu_quota from api_keys where id = $1', [id]);
    expect(rows).toEqual([{ cu_quota: '7' }]);
  }, 120_000);

  it("shows each key's use of its current period as a table and as JSON", async () => {
    const a = idOf(
      (await sluice(['keys', 'create', '--name', 'alpha', '--cu-quota', '100'])).stdout,
    );
    const b = idOf(
      (await sluice(['keys', 'create', '--name', 'beta', '--cu-period', 'day'])).stdout,
    );
    const store = createDbUsageStore(t.db);
    const now = new Date();
    await store.reserve(usageSlot(a, 'month', now), 42, 100);
    await store.reserve(usageSlot(b, 'day', now), 7, null);
    // Last month's units are not this month's.
    await store.reserve(usageSlot(a, 'month', new Date(now.getTime() - 40 * 86_400_000)), 9, 100);

    const table = await sluice(['keys', 'usage']);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^id\s+name\s+period\s+used\s+quota\s+remaining\s+period start\s+period end$/,
    );
    const month = usageSlot(a, 'month', now);
    const day = usageSlot(b, 'day', now);
    expect(lines.find((l) => l.startsWith(a))?.split(/\s{2,}/)).toEqual([
      a,
      'alpha',
      'month',
      '42',
      '100',
      '58',
      month.periodStart.toISOString(),
      month.periodEnd.toISOString(),
    ]);
    expect(lines.find((l) => l.startsWith(b))?.split(/\s{2,}/)).toEqual([
      b,
      'beta',
      'day',
      '7',
      'unlimited',
      '-',
      day.periodStart.toISOString(),
      day.periodEnd.toISOString(),
    ]);

    const json = await sluice(['keys', 'usage', '--json']);
    const parsed = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(parsed.find((l) => l.id === b)).toEqual({
      id: b,
      name: 'beta',
      period: 'day',
      used: 7,
      quota: null,
      remaining: null,
      period_start: day.periodStart.toISOString(),
      period_end: day.periodEnd.toISOString(),
    });
    // Never the key itself, nor its hash.
    const { rows } = await t.db.query<{ key_hash: string }>('select key_hash from api_keys');
    for (const r of rows) expect(json.stdout).not.toContain(r.key_hash);
  }, 120_000);
});
