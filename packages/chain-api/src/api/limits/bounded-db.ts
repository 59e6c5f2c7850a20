import type { QueryResult } from '@sluice/db';
import pg from 'pg';
import type { ReadDb } from '../queries/prepared-query.js';
import { currentScope, type RequestScope, raceScope } from './request-scope.js';

const bounded = Symbol('sluice.boundedDb');

/**
 * The store as a request reads it: each statement waits for one of its API key's database slots
 * (so one key cannot hold the whole pool) and is cancelled at the request's deadline. On
 * PostgreSQL the running statement is cancelled on the server (`pg_cancel_backend`); on PGlite,
 * which cannot cancel, and behind the read router, the request stops waiting for it (its
 * statements are bounded by the row caps and statement_timeout). Outside a request: unchanged.
 *
 * @example
 * const ctxDb = boundedReadDb(db);
 * await ctxDb.query('select 1'); // inside a request: cancelled at its deadline
 */
export function boundedReadDb(db: ReadDb): ReadDb {
  if ((db as { [bounded]?: true })[bounded]) return db;
  const pool = db.pgPool;
  const prepared = <Row>(name: string, sql: string, params: unknown[]) =>
    db.queryPrepared
      ? db.queryPrepared<Row>(name, sql, params)
      : pool
        ? pool
            .query({ name, text: sql, values: params })
            .then((r) => ({ rows: r.rows as Row[], rowCount: r.rowCount ?? 0 }))
        : db.query<Row>(sql, params);
  const out: ReadDb & { [bounded]: true } = {
    [bounded]: true,
    query<Row>(sql: string, params?: unknown[]): Promise<QueryResult<Row>> {
      const scope = currentScope();
      if (!scope) return db.query<Row>(sql, params);
      if (pool)
        return inSlot(scope, () =>
          cancellable<Row>(pool, scope.signal, { text: sql, values: params }),
        );
      return inSlot(scope, () => db.query<Row>(sql, params));
    },
    exec: (sql) => db.exec(sql),
    queryPrepared<Row>(name: string, sql: string, params: unknown[]): Promise<QueryResult<Row>> {
      const scope = currentScope();
      if (!scope) return prepared<Row>(name, sql, params);
      if (pool && !db.queryPrepared) {
        return inSlot(scope, () =>
          cancellable<Row>(pool, scope.signal, { name, text: sql, values: params }),
        );
      }
      return inSlot(scope, () => prepared<Row>(name, sql, params));
    },
  };
  return out;
}

/**
 * Runs `work` in one of the key's slots; the caller is answered at the deadline, while the slot
 * stays taken until the statement really ends (a statement PGlite cannot stop still counts).
 */
function inSlot<T>(scope: RequestScope, work: () => Promise<T>): Promise<T> {
  return raceScope(scope.dbSlots.run(scope.key(), work, scope.signal), scope.signal);
}

interface PgQuery {
  name?: string;
  text: string;
  values?: unknown[] | undefined;
}

/**
 * Cancels what backend `pid` runs, from a connection of its own (outside the pool, which may be
 * full): `pg_cancel_backend`, allowed for the pool's own role.
 */
async function cancelBackend(pool: pg.Pool, pid: number): Promise<void> {
  const canceller = new pg.Client(pool.options);
  canceller.on('error', () => {});
  try {
    await canceller.connect();
    await canceller.query('select pg_cancel_backend($1)', [pid]);
  } catch {
    // The statement ends anyway at the pool's statement_timeout.
  } finally {
    await canceller.end().catch(() => {});
  }
}

/** One statement on a client of its own, cancelled on the server when `signal` aborts. */
async function cancellable<Row>(
  pool: pg.Pool,
  signal: AbortSignal,
  query: PgQuery,
): Promise<QueryResult<Row>> {
  signal.throwIfAborted();
  const checkout = pool.connect();
  let client: pg.PoolClient;
  try {
    client = await raceScope(checkout, signal);
  } catch (error) {
    // The connection may still arrive: hand it straight back.
    checkout.then(
      (c) => c.release(),
      () => {},
    );
    throw error;
  }
  let cancelling: Promise<void> | undefined;
  const onAbort = () => {
    const pid = (client as unknown as { processID?: number | null }).processID;
    if (pid) cancelling = cancelBackend(pool, pid);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    signal.throwIfAborted();
    const result = await client.query(query);
    return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
  } finally {
    signal.removeEventListener('abort', onAbort);
    // Not back to the pool before the cancel landed: it must not hit another request's statement.
    if (cancelling) await cancelling;
    client.release();
  }
}
