import type { QueryResult } from '@sluice/db';
import pg from 'pg';
import type { ReadDb } from '../queries/prepared-query.js';
import { type RequestScope, raceScope } from './request-scope.js';

/**
 * The store as one request reads it: each statement waits for one of its API key's database
 * slots (so one key cannot hold the whole pool) and is cancelled at the request's deadline. On
 * PostgreSQL the running statement is cancelled on the server (`pg_cancel_backend`); on PGlite,
 * which cannot cancel, and behind the read router, the request stops waiting for it (its
 * statements are bounded by the row caps and statement_timeout). Without a scope: `db` itself.
 *
 * @example
 * const db = scopedReadDb(ctx.db, requestScope(request));
 * await db.query('select 1'); // cancelled at the request's deadline
 */
export function scopedReadDb(db: ReadDb, scope: RequestScope | undefined): ReadDb {
  return scope ? new ScopedReadDb(db, scope) : db;
}

// No `pgPool` of its own: `preparedQuery` would use the pool directly, past the slots.
class ScopedReadDb implements ReadDb {
  readonly #db: ReadDb;
  readonly #scope: RequestScope;

  constructor(db: ReadDb, scope: RequestScope) {
    this.#db = db;
    this.#scope = scope;
  }

  query<Row>(sql: string, params?: unknown[]): Promise<QueryResult<Row>> {
    const scope = this.#scope;
    const pool = this.#db.pgPool;
    if (pool) {
      return inSlot(scope, () =>
        cancellable<Row>(pool, scope.signal, { text: sql, values: params }),
      );
    }
    return inSlot(scope, () => this.#db.query<Row>(sql, params));
  }

  exec(sql: string): Promise<void> {
    return this.#db.exec(sql);
  }

  queryPrepared<Row>(name: string, sql: string, params: unknown[]): Promise<QueryResult<Row>> {
    const scope = this.#scope;
    const db = this.#db;
    const pool = db.pgPool;
    if (pool && !db.queryPrepared) {
      return inSlot(scope, () =>
        cancellable<Row>(pool, scope.signal, { name, text: sql, values: params }),
      );
    }
    return inSlot(scope, () =>
      db.queryPrepared ? db.queryPrepared<Row>(name, sql, params) : db.query<Row>(sql, params),
    );
  }
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
