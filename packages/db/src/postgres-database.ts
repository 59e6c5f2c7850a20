import pg from 'pg';
import { listenPostgres } from './postgres-listener.js';
import type { Database, OpenDatabaseOptions, Queryable, QueryResult } from './types.js';

/**
 * Statement and connection timeouts from the options, else 5 s each. The caller's configuration
 * supplies them (this package reads no environment).
 */
export function resolveTimeouts(options: OpenDatabaseOptions): {
  statementMs: number;
  connectMs: number;
} {
  return {
    statementMs: options.statementTimeoutMs ?? 5_000,
    connectMs: options.connectTimeoutMs ?? 5_000,
  };
}

/**
 * `pg` settings bounding every wait: the server cancels a statement after `statementMs`; the
 * client gives up reading 1 s later (a server that stopped answering cannot cancel anything)
 * and after `connectMs` waiting for a connection.
 */
function timeoutConfig(statementMs: number, connectMs: number): pg.ClientConfig {
  return {
    ...(statementMs > 0
      ? { statement_timeout: statementMs, query_timeout: statementMs + 1_000 }
      : {}),
    ...(connectMs > 0 ? { connectionTimeoutMillis: connectMs } : {}),
    keepAlive: true,
  };
}

/** Opens a `pg` pool; with `schema`, creates it and makes it every session's whole search path. */
export async function openPostgres(url: string, options: OpenDatabaseOptions): Promise<Database> {
  const { schema } = options;
  const { statementMs, connectMs } = resolveTimeouts(options);
  const timeouts = timeoutConfig(statementMs, connectMs);
  if (schema) {
    // Create the schema on a one-off client so the pool's sessions can start with it on their path.
    const client = new pg.Client({ connectionString: url, ...timeouts });
    client.on('error', () => {});
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
    ...timeouts,
    ...(schema ? { options: `-c search_path="${schema}"` } : {}),
  };
  const pool = new pg.Pool({ ...clientConfig, max: options.max ?? 10 });
  const listeners = new Set<{ close(): Promise<void> }>();
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  // A checked-out client's socket error is delivered to its query; without a listener of its own
  // the client would also re-emit it as an unhandled 'error' event and crash the process.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });

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
      let broken = false;
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
        // A connection that cannot even roll back (lost, frozen) is destroyed, not pooled again.
        await client.query('rollback').catch(() => {
          broken = true;
        });
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async ping() {
      await pool.query('select 1');
    },
    async listen(channel, onNotify, listenOptions) {
      const listener = await listenPostgres(clientConfig, channel, onNotify, listenOptions);
      listeners.add(listener);
      return {
        notify: (to, payload) => listener.notify(to, payload),
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
