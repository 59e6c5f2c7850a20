import { migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainMigrations } from './chain-migrations.js';

const tables = [
  'activity',
  'blocks',
  'checkpoints',
  'contract_probes',
  'deferred_indexes',
  'erc20_balances',
  'logs',
  'native_balances',
  'nft_holdings',
  'nft_metadata',
  'nft_sales',
  'pool_states',
  'pools',
  'reorg_undo',
  'tokens',
  'transactions',
];

// PGlite runs the same migrations in test/indexer/index-devnet.test.ts (one PGlite per suite: it is slow to boot).
describe.each(['postgres'] as const)('chainMigrations on %s', (kind) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(kind);
  });
  afterAll(() => t?.drop());

  it('creates every table once and is idempotent', async () => {
    expect(await migrate(t.db, chainMigrations)).toEqual(chainMigrations.map((m) => m.id));
    expect(await migrate(t.db, chainMigrations)).toEqual([]);
    const { rows } = await t.db.query<{ table_name: string }>(
      `select table_name from information_schema.tables
        where table_schema = current_schema() and table_name <> 'schema_migrations' order by 1`,
    );
    expect(rows.map((r) => r.table_name)).toEqual(tables);
  });

  it('rejects activity rows with an unknown type and keeps balances beyond uint256', async () => {
    await expect(
      t.db.query(
        `insert into activity (chain_id, wallet, block_time, block_number, tx_index, log_index, tx_hash, type)
         values (1, '0xa', now(), 1, 0, 0, '0x1', 'steal')`,
      ),
    ).rejects.toThrow(/check constraint/);
    const huge = (2n ** 257n).toString();
    await t.db.query(
      `insert into erc20_balances (wallet, chain_id, token, amount, updated_block) values ('0xa', 1, '0xt', $1, 1)`,
      [huge],
    );
    const { rows } = await t.db.query<{ amount: string }>('select amount from erc20_balances');
    expect(rows[0]?.amount).toBe(huge);
  });
});
