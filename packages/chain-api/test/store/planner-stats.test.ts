import { migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeMigrations } from '../../src/store/migrations.js';
import { PlannerStats } from '../../src/store/planner-stats.js';

/**
 * The indexer's statistics refresh of the balance tables: an `analyze` each time the balance
 * rows written doubled, after which a key look-up (the shape of an undo snapshot, a stored
 * balance read) plans on the primary key instead of walking a token's holders.
 */
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase('postgres');
  await migrate(t.db, storeMigrations);
  // 4 tokens x 5,000 holders, never analyzed (what a backfill leaves when autovacuum lags).
  await t.db.exec(`insert into erc20_balances (wallet, chain_id, token, amount, updated_block)
    select '0x' || md5(w::text) || 'abcdefgh', 1, '0x' || md5('t' || k) || '12345678', w * 1000 + k, 1
      from generate_series(1, 5000) w, generate_series(1, 4) k`);
});
afterAll(async () => {
  await t?.drop();
});

const analyzed = async () => {
  const { rows } = await t.db.query<{ n: number }>(
    `select reltuples::float8 as n from pg_class where oid = 'erc20_balances'::regclass`,
  );
  return Number(rows[0]?.n);
};

describe('PlannerStats', () => {
  it('analyzes only when the rows written since start doubled', async () => {
    const errors: unknown[] = [];
    const stats = new PlannerStats(t.db, (e) => errors.push(e));
    expect(await analyzed()).toBeLessThan(0); // never analyzed
    expect(await stats.wrote(500)).toBe(false);
    expect(await analyzed()).toBeLessThan(0);
    expect(await stats.wrote(600)).toBe(true); // 1,100 >= 1,000
    expect(await analyzed()).toBe(20_000);
    expect(await stats.wrote(1_000)).toBe(false); // 2,100 < 2,200
    expect(await stats.wrote(200)).toBe(true); // 2,300 >= 2,200
    expect(errors).toEqual([]);
  });

  it('after a refresh a balance look-up by (wallet, token) uses the primary key', async () => {
    await new PlannerStats(t.db, () => {}).wrote(10_000);
    const { rows: keys } = await t.db.query<{ wallet: string; token: string }>(
      'select wallet, token from erc20_balances order by wallet limit 500',
    );
    const { rows } = await t.db.query<{ 'QUERY PLAN': string }>(
      `explain select (select jsonb_agg(to_jsonb(snap.*)) from erc20_balances snap
                        where snap.chain_id = 1 and snap.wallet = k.wallet and snap.token = k.token)
         from unnest($1::text[], $2::text[]) as k(wallet, token)`,
      [keys.map((k) => k.wallet), keys.map((k) => k.token)],
    );
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toContain('erc20_balances_pkey');
    expect(plan).not.toContain('erc20_balances_holders_idx');
  });
});
