import { createHash } from 'node:crypto';
import type { Queryable, QueryResult } from '@sluice/db';
import type { Pool } from 'pg';

/**
 * The store as the routes read it: any Queryable, plus the pg pool when it is PostgreSQL, or a
 * `queryPrepared` of its own when reads are spread over several servers (the read router).
 */
export type ReadDb = Queryable & {
  readonly pgPool?: Pool | undefined;
  queryPrepared?<Row>(name: string, sql: string, params: unknown[]): Promise<QueryResult<Row>>;
};

// Statement texts come from a handful of builders, so this stays small.
const names = new Map<string, string>();

/**
 * Runs a read as a named prepared statement on PostgreSQL, so each pooled connection plans it
 * once instead of on every request (planning the joined page queries costs more than running
 * them). The name is a hash of the SQL text, so every distinct text gets its own statement.
 * On PGlite (or a transaction) it is an ordinary query.
 */
export async function preparedQuery<Row>(
  db: ReadDb,
  sql: string,
  params: unknown[],
): Promise<QueryResult<Row>> {
  if (!db.pgPool && !db.queryPrepared) return db.query<Row>(sql, params);
  let name = names.get(sql);
  if (!name) {
    name = `api_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    names.set(sql, name);
  }
  if (!db.pgPool) return db.queryPrepared!<Row>(name, sql, params);
  const result = await db.pgPool.query({ name, text: sql, values: params });
  return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
}
