import { migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeMigrations } from '../../src/store/migrations.js';
import {
  DELETED_BY_BLOCK,
  ROLLED_BACK_OTHERWISE,
  UNDOABLE_TABLES,
  unhandledByRollback,
} from '../../src/store/undo/reorg-tables.js';

/** Tables of the migrated schema with a chain_id and a bigint column naming a block. */
async function blockTables(t: TestDatabase, extra = ''): Promise<string[]> {
  if (extra) await t.db.query(extra);
  const { rows } = await t.db.query<{ table_name: string }>(
    `select distinct b.table_name from information_schema.columns b
       join information_schema.columns c
         on c.table_schema = b.table_schema and c.table_name = b.table_name and c.column_name = 'chain_id'
      where b.table_schema = current_schema() and b.data_type = 'bigint'
        and (b.column_name like '%block%' or b.column_name = 'number')
      order by 1`,
  );
  return rows.map((r) => r.table_name);
}

describe('every table holding rows of blocks says how a reorg rolls it back', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('postgres');
    await migrate(t.db, storeMigrations);
  });
  afterAll(() => t?.drop());

  it('the migrated store has none a rollback leaves alone', async () => {
    const tables = await blockTables(t);
    expect(tables).toContain('activity');
    expect(tables).toContain('erc20_balances');
    expect(unhandledByRollback(tables)).toEqual([]);
  });

  it('declares no table the migrated store does not have (a dropped table leaves no entry)', async () => {
    const declared = [
      ...Object.keys(UNDOABLE_TABLES),
      ...DELETED_BY_BLOCK.map((d) => d.table),
      ...Object.keys(ROLLED_BACK_OTHERWISE),
    ];
    const { rows } = await t.db.query<{ table_name: string }>(
      `select table_name from information_schema.tables where table_schema = current_schema()`,
    );
    const existing = new Set(rows.map((r) => r.table_name));
    expect(declared.filter((table) => !existing.has(table))).toEqual([]);
  });

  it('a new table with block rows and no rollback declaration is reported', async () => {
    const tables = await blockTables(
      t,
      'create table subscriptions_outbox (chain_id integer, block_number bigint, payload jsonb)',
    );
    expect(unhandledByRollback(tables)).toEqual(['subscriptions_outbox']);
  });
});
