import type { Database, Migration, Queryable } from '@sluice/db';
import { activityFeedIndex } from './activity.js';
import { logsTxIndex, transactionsFromIndex, transactionsToIndex } from './api/sim-migrations.js';
import { transactionsHashIndex } from './chain-data.js';
import type { IndexDefinition } from './index-definition.js';
import { activityTokenIndex } from './token-totals.js';

/**
 * Secondary indexes of the append-only tables that only the API reads. No statement of a write
 * path plans on them (EXPLAIN-checked, docs/indexer.md): batches append by COPY with no conflict
 * target, a rollback deletes by `(chain_id, block_number)` (`activity_block_idx`, the primary keys
 * of `transactions` and `logs`), the NFT worker reads activity and logs by block range, the
 * webhook outbox is built from the batch in memory, reconciliation reads the balance tables.
 * Wallets-mode backfills append `on conflict do nothing`, which needs the unique feed index: a
 * chain in wallets mode never defers and builds any deferred index before it writes.
 */
export const DEFERRABLE_INDEXES: readonly IndexDefinition[] = [
  activityFeedIndex,
  activityTokenIndex,
  transactionsHashIndex,
  transactionsFromIndex,
  transactionsToIndex,
  logsTxIndex,
];

/** Tables a fresh store has no rows in (those whose indexes are deferred, and the balances). */
const FRESH_TABLES = ['activity', 'transactions', 'logs', 'erc20_balances', 'native_balances'];

const schema = /* sql */ `
-- Secondary indexes dropped at the start of a cold backfill and built once a chain caught up
-- (src/store/deferred-indexes.ts holds their definitions). A row per index still to build.
create table deferred_indexes (
  name        text        primary key,
  deferred_at timestamptz not null default now()
);
`;

/** Appended to the indexer's migrations. */
export const deferredIndexesMigrations: Migration[] = [
  { id: 'chain-006-deferred-indexes', sql: schema },
];

/** Serializes deciders and builders of one schema (two processes starting on one store). */
const lock = (tx: Queryable) =>
  tx.query(`select pg_advisory_xact_lock(hashtext(current_schema() || '.deferred_indexes'))`);

/** No row in the write-path tables and no chain past its backfill. */
async function isFresh(db: Queryable): Promise<boolean> {
  const empty = FRESH_TABLES.map((t) => `not exists (select 1 from ${t})`).join(' and ');
  const { rows } = await db.query<{ fresh: boolean }>(
    `select ${empty} and not exists (select 1 from checkpoints where backfill_done) as fresh`,
  );
  return rows[0]?.fresh === true;
}

/**
 * On a fresh store (no row in the write-path tables, no chain past its backfill), drops the
 * deferrable indexes that exist and records them, in one transaction holding the tables' locks
 * (a concurrent first batch either commits before, and nothing is dropped, or waits). Returns the
 * names dropped (none on a store with data).
 *
 * @example
 * const dropped = await deferIndexes(db); // ['activity_wallet_feed_idx', ...] or []
 */
export async function deferIndexes(db: Database): Promise<string[]> {
  // A store with data (every restart but the first) answers without taking any lock.
  if (!(await isFresh(db))) return [];
  return db.transaction(async (tx) => {
    await lock(tx);
    await tx.exec(`lock table ${FRESH_TABLES.join(', ')} in share row exclusive mode`);
    if (!(await isFresh(tx))) return [];
    const present = await tx.query<{ indexname: string }>(
      `select indexname from pg_indexes
        where schemaname = current_schema() and indexname = any($1::text[])`,
      [DEFERRABLE_INDEXES.map((i) => i.name)],
    );
    const names = present.rows.map((r) => r.indexname).sort();
    for (const name of names) {
      await tx.exec(`drop index if exists ${name}`);
      await tx.query('insert into deferred_indexes (name) values ($1) on conflict do nothing', [
        name,
      ]);
    }
    return names;
  });
}

/** Names of the deferred indexes still to build. */
export async function pendingIndexes(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    'select name from deferred_indexes order by name',
  );
  return rows.map((r) => r.name);
}

/**
 * Builds every deferred index (`create index if not exists`, the migrations' own text), each in
 * its own transaction with the deletion of its row: a build killed halfway leaves the row, and the
 * next start builds it again. Returns the names this call built (not those another process built
 * meanwhile), with their seconds.
 *
 * @example
 * const built = await buildDeferredIndexes(db); // [{ name: 'activity_wallet_feed_idx', seconds: 3.1 }]
 */
export async function buildDeferredIndexes(
  db: Database,
): Promise<{ name: string; seconds: number }[]> {
  const built: { name: string; seconds: number }[] = [];
  const tables = new Set<string>();
  for (const name of await pendingIndexes(db)) {
    const def = DEFERRABLE_INDEXES.find((i) => i.name === name);
    const t0 = performance.now();
    const didBuild = await db.transaction(async (tx) => {
      await lock(tx);
      const { rowCount } = await tx.query('delete from deferred_indexes where name = $1', [name]);
      if (rowCount === 0 || !def) return false; // built by another process meanwhile, or unknown
      // A bigger sort budget than the default 64 MB keeps a large build in memory. One build at a
      // time: each already sorts with PostgreSQL's parallel workers, and two at once measured no
      // faster at 1M events (11.8 s against 11.2 s).
      if (db.kind === 'postgres') await tx.exec(`set local maintenance_work_mem = '256MB'`);
      await tx.exec(def.create);
      tables.add(def.table);
      return true;
    });
    if (didBuild) built.push({ name, seconds: (performance.now() - t0) / 1000 });
  }
  // Planner statistics of tables that grew without them (autovacuum may not have run yet).
  if (db.kind === 'postgres' && tables.size > 0) await db.exec(`analyze ${[...tables].join(', ')}`);
  return built;
}
