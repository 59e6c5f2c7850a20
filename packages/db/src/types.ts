/** Result of one SQL statement. `int8` and `numeric` columns come back as strings on both drivers. */
export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number;
}

/** Anything that runs SQL: the database itself or an open transaction. */
export interface Queryable {
  /**
   * Runs one parameterised statement (`$1`, `$2`, ...).
   *
   * @example
   * const db = await openDatabase({ dataDir: 'memory://' });
   * const { rows } = await db.query<{ id: number }>('select id from users where id = $1', [7]);
   */
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<Row>>;
  /** Runs a script of several statements without parameters (migrations, DDL). */
  exec(sql: string): Promise<void>;
}

export type DatabaseKind = 'postgres' | 'pglite';

export interface Database extends Queryable {
  readonly kind: DatabaseKind;
  /** The `pg` pool when `kind` is `postgres` (for COPY or LISTEN); undefined on PGlite. */
  readonly pgPool: import('pg').Pool | undefined;
  /**
   * Runs `fn` inside one transaction: committed when it resolves, rolled back when it throws.
   *
   * @example
   * await db.transaction(async (tx) => {
   *   await tx.query('insert into a values ($1)', [1]);
   *   await tx.query('insert into b values ($1)', [2]);
   * });
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Checks the connection with `select 1`; rejects when the database is unreachable. */
  ping(): Promise<void>;
  /**
   * Subscribes to `NOTIFY` on `channel` (or several channels on one connection, so their
   * notifications arrive in commit order; each an unquoted identifier: lower-case letters,
   * digits, `_`). On PostgreSQL this holds one dedicated connection (outside the pool) and
   * reconnects after it drops; `onConnectionChange(false)` tells the caller notifications may
   * have been missed until the next `onConnectionChange(true)`.
   *
   * @example
   * const listener = await db.listen('jobs_changed', (payload) => wake(payload));
   * await listener.close();
   */
  listen(
    channel: string | readonly string[],
    onNotify: (payload: string, channel: string) => void,
    options?: ListenOptions,
  ): Promise<Listener>;
  /** Closes the pool (or the embedded database). Idempotent. */
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** PostgreSQL connection string. Unset: embedded PGlite in `dataDir`. */
  url?: string | undefined;
  /** PGlite data folder (default `./data`); `memory://` keeps it in memory. Ignored with `url`. */
  dataDir?: string | undefined;
  /**
   * Schema to create (if missing) and make the whole search path: a table missing from it is an
   * error, never another schema's table of the same name (`public`'s, say).
   */
  schema?: string | undefined;
  /** Maximum pool size for PostgreSQL (default 10). */
  max?: number | undefined;
  /** Application name reported to PostgreSQL. */
  applicationName?: string | undefined;
  /**
   * PostgreSQL: longest a statement may run before it fails (server-side `statement_timeout`,
   * and a client-side read timeout a little later, for a server that stopped answering at all).
   * Default 5000; 0 for none (long-running workers, migrations). Callers pass their configured value.
   */
  statementTimeoutMs?: number | undefined;
  /**
   * PostgreSQL: longest wait for a connection (a new one, or a free one from the pool).
   * Default 5000; 0 for none. Callers pass their configured value.
   */
  connectTimeoutMs?: number | undefined;
}

/** One schema change, applied once and recorded by `id`. */
export interface Migration {
  id: string;
  sql: string;
}

export interface ListenOptions {
  /** Called with `false` when the listening connection drops and `true` once it listens again. */
  onConnectionChange?: (connected: boolean) => void;
  /** First reconnect delay in ms, doubled up to 5 s (default 250). */
  reconnectDelayMs?: number;
}

/** An active `LISTEN`; `close()` unsubscribes (and ends the dedicated connection). Idempotent. */
export interface Listener {
  /**
   * `NOTIFY channel, payload` sent on the listening connection itself (no pool wait). When it
   * is one of the listened channels, the notification comes back after every notification of a
   * transaction that committed before it: a marker that the listener has caught up. Rejects
   * while the connection is down.
   */
  notify(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}
