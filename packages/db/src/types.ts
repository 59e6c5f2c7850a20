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
  /** Closes the pool (or the embedded database). Idempotent. */
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** PostgreSQL connection string. Unset: embedded PGlite in `dataDir`. */
  url?: string | undefined;
  /** PGlite data folder (default `./data`); `memory://` keeps it in memory. Ignored with `url`. */
  dataDir?: string | undefined;
  /** Schema to create (if missing) and put first on the search path. */
  schema?: string | undefined;
  /** Maximum pool size for PostgreSQL (default 10). */
  max?: number | undefined;
  /** Application name reported to PostgreSQL. */
  applicationName?: string | undefined;
}

/** One schema change, applied once and recorded by `id`. */
export interface Migration {
  id: string;
  sql: string;
}
