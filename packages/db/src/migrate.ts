import { DatabaseError } from './database-error.js';
import type { Database, Migration, Queryable } from './types.js';

export interface MigrateOptions {
  /** Table that records applied migration ids (default `schema_migrations`). */
  table?: string;
}

/**
 * Applies the migrations not yet recorded, in order, each in its own transaction.
 * Safe to run from several processes at once: a transaction-level advisory lock serializes them.
 *
 * @example
 * await migrate(db, [{ id: '001-users', sql: 'create table users (id bigint primary key)' }]);
 */
export async function migrate(
  db: Database,
  migrations: readonly Migration[],
  options: MigrateOptions = {},
): Promise<string[]> {
  const table = options.table ?? 'schema_migrations';
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new DatabaseError('Invalid migrations table', table);
  const ids = new Set<string>();
  for (const m of migrations) {
    if (ids.has(m.id)) throw new DatabaseError('Duplicate migration id', m.id);
    ids.add(m.id);
  }

  // Key the lock on the table name and current schema so parallel test schemas don't contend.
  const lock = (tx: Queryable) =>
    tx.query(`select pg_advisory_xact_lock(hashtext(current_schema() || '.' || $1))`, [table]);
  // Under the lock too: two processes starting at once would both try to create it (`if not
  // exists` does not serialize concurrent creations).
  await db.transaction(async (tx) => {
    await lock(tx);
    await tx.query(
      `create table if not exists ${table} (id text primary key, applied_at timestamptz not null default now())`,
    );
  });
  const applied: string[] = [];
  for (const migration of migrations) {
    const done = await db.transaction(async (tx) => {
      await lock(tx);
      const { rows } = await tx.query(`select 1 from ${table} where id = $1`, [migration.id]);
      if (rows.length > 0) return false;
      await tx.exec(migration.sql);
      await tx.query(`insert into ${table} (id) values ($1)`, [migration.id]);
      return true;
    });
    if (done) applied.push(migration.id);
  }
  return applied;
}
