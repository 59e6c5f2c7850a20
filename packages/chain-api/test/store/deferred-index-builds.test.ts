import { type Database, migrate, openDatabase } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDeferredIndexes, pendingIndexes } from '../../src/store/deferred-indexes.js';
import { storeMigrations } from '../../src/store/migrations.js';

/**
 * The deferred secondary indexes built once a chain is at the head by two processes at the same
 * time: each index is built once, and each process reports only what it built itself.
 */
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase('postgres');
  await migrate(t.db, storeMigrations);
});
afterAll(async () => {
  await t?.drop();
});

const exists = async (db: Database, name: string) => {
  const { rows } = await db.query<{ n: number }>(
    `select count(*)::int as n from pg_indexes where schemaname = current_schema() and indexname = $1`,
    [name],
  );
  return rows[0]?.n === 1;
};

/** Drops `names` and records them as deferred, as a cold backfill's start does. */
async function defer(db: Database, names: readonly string[]) {
  for (const name of names) {
    await db.exec(`drop index if exists ${name}`);
    await db.query('insert into deferred_indexes (name) values ($1) on conflict do nothing', [
      name,
    ]);
  }
}

describe('buildDeferredIndexes', () => {
  it('two processes building at once build each index once and report only their own', async () => {
    const names = [
      'activity_wallet_feed_idx',
      'activity_wallet_token_idx',
      'transactions_hash_idx',
      'transactions_from_idx',
      'transactions_to_idx',
      'logs_tx_idx',
    ];
    await defer(t.db, names);
    const other = await openDatabase({ url: t.url!, max: 3, statementTimeoutMs: 0 });
    try {
      const [a, b] = await Promise.all([buildDeferredIndexes(t.db), buildDeferredIndexes(other)]);
      // A build the other process had done already is skipped, not repeated.
      expect([...a, ...b].map((x) => x.name).sort()).toEqual([...names].sort());
      for (const name of names) expect(await exists(t.db, name)).toBe(true);
      expect(await pendingIndexes(t.db)).toEqual([]);
    } finally {
      await other.close();
    }
  }, 60_000);
});
