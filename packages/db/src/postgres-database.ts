import pg from 'pg';
import { listenPostgres } from './postgres-listener.js';
import type { Database, OpenDatabaseOptions, Queryable, QueryResult } from './types.js';

/** Opens a `pg` pool; with `schema`, creates it and makes it the first entry of every session's search path. */
export async function openPostgres(url: string, options: OpenDatabaseOptions): Promise<Database> {
  const { schema } = options;
  if (schema) {
    // Create the schema on a one-off client so the pool's sessions can start with it on their path.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`create schema if not exists "${schema}"`);
    } finally {
      await client.end();
    }
  }
  const clientConfig: pg.ClientConfig = {
    connectionString: url,
    application_name: options.applicationName ?? 'sluice',
    ...(schema ? { options: `-c search_path="${schema}",public` } : {}),
  };
  const pool = new pg.Pool({ ...clientConfig, max: options.max ?? 10 });
  const listeners = new Set<{ close(): Promise<void> }>();
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});

  const run = async <Row>(
    q: pg.Pool | pg.PoolClient,
    sql: string,
    params?: unknown[],
  ): Promise<QueryResult<Row>> => {
    const result = await q.query(sql, params as unknown[] | undefined);
    return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
  };

  let closed = false;
  return {
    kind: 'postgres',
    pgPool: pool,
    query: (sql, params) => run(pool, sql, params),
    async exec(sql) {
      await pool.query(sql);
    },
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const tx: Queryable = {
          query: (sql, params) => run(client, sql, params),
          exec: async (sql) => {
            await client.query(sql);
          },
        };
        const value = await fn(tx);
        await client.query('commit');
        return value;
      } catch (error) {
        await client.query('rollback').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async ping() {
      await pool.query('select 1');
    },
    async listen(channel, onNotify, listenOptions) {
      const listener = await listenPostgres(clientConfig, channel, onNotify, listenOptions);
      listeners.add(listener);
      return {
        async close() {
          listeners.delete(listener);
          await listener.close();
        },
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...listeners].map((listener) => listener.close()));
      await pool.end();
    },
  };
}
