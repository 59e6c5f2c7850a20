import { migrate } from '@sluice/db';
import { createTestDatabase } from '@sluice/db/testing';
import { describe, expect, it } from 'vitest';
import { chainMigrations } from '../db/index.js';
import { pricingMigrations } from './migrations.js';
import { rollbackPricing } from './rollback-pricing.js';

describe('rollbackPricing', () => {
  it('is a no-op on a store without the pricing tables', async () => {
    const t = await createTestDatabase('postgres');
    try {
      await migrate(t.db, chainMigrations);
      // The reorg transaction it runs in goes on: a later write in it commits.
      await t.db.transaction(async (tx) => {
        await rollbackPricing(tx, 1, 10n);
        await tx.query(
          `insert into checkpoints (chain_id, indexed_block, indexed_hash) values (1, 10, '0xa')`,
        );
      });
      const { rows } = await t.db.query<{ block: string; pricing: string | null }>(
        `select indexed_block::text as block, to_regclass('pricing_cursors')::text as pricing
           from checkpoints where chain_id = 1`,
      );
      expect(rows).toEqual([{ block: '10', pricing: null }]);
    } finally {
      await t.drop();
    }
  });

  it('rewinds the cursor, bumps the epoch, deletes later points, marks later prices dirty', async () => {
    const t = await createTestDatabase('postgres');
    try {
      const db = t.db;
      await migrate(db, [...chainMigrations, ...pricingMigrations]);
      await db.query(
        `insert into pricing_cursors (chain_id, last_block, epoch, compacted_block) values (1, 20, 3, 15), (2, 20, 0, 0)`,
      );
      for (const [chain, block] of [
        [1, 9],
        [1, 10],
        [1, 11],
        [2, 11],
      ]) {
        await db.query(
          `insert into price_history (chain_id, token, block_number, time, price_usd, quote, price_in_quote)
           values ($1, '0xt', $2, now(), 1, '0xq', 1)`,
          [chain, block],
        );
        await db.query(
          `insert into token_prices (chain_id, token, price_usd, low_liquidity, quote, price_in_quote,
             quote_liquidity, route, updated_block, updated_at)
           values ($1, $3, 1, false, '0xq', 1, 1, '{}', $2, now())`,
          [chain, block, `0xt${block}`],
        );
      }
      await db.transaction((tx) => rollbackPricing(tx, 1, 10n));
      const cursors = await db.query(
        'select chain_id, last_block::int, epoch::int, compacted_block::int from pricing_cursors order by chain_id',
      );
      expect(cursors.rows).toEqual([
        { chain_id: 1, last_block: 10, epoch: 4, compacted_block: 10 },
        { chain_id: 2, last_block: 20, epoch: 0, compacted_block: 0 },
      ]);
      const points = await db.query(
        'select chain_id, block_number::int as b from price_history order by chain_id, block_number',
      );
      expect(points.rows).toEqual([
        { chain_id: 1, b: 9 },
        { chain_id: 1, b: 10 },
        { chain_id: 2, b: 11 },
      ]);
      const dirty = await db.query(
        'select chain_id, token from token_prices where dirty order by chain_id, token',
      );
      expect(dirty.rows).toEqual([{ chain_id: 1, token: '0xt11' }]);
      // a cursor already below the target stays where it is
      await db.transaction((tx) => rollbackPricing(tx, 1, 15n));
      expect(
        (await db.query('select last_block::int as b from pricing_cursors where chain_id = 1'))
          .rows,
      ).toEqual([{ b: 10 }]);
    } finally {
      await t.drop();
    }
  });
});
