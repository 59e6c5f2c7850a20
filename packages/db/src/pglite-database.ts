import { PGlite, types } from '@electric-sql/pglite';
import { lockFolder } from './folder-lock.js';
import { channelList } from './listen-channel.js';
import type { Database, Queryable, QueryResult } from './types.js';

// Match node-postgres: 64-bit integers and numerics stay exact as strings.
const parsers = {
  [types.INT8]: (value: string) => value,
  [types.NUMERIC]: (value: string) => value,
};

/**
 * Opens the embedded PGlite database in `dataDir` (or `memory://`). A folder is locked for this
 * process (see `lockFolder`): two processes writing one PGlite folder corrupt it.
 */
export async function openPglite(dataDir: string, schema: string | undefined): Promise<Database> {
  const lock = dataDir === 'memory://' ? undefined : lockFolder(dataDir);
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(dataDir, { parsers });
    if (schema) {
      await pglite.exec(`create schema if not exists "${schema}"; set search_path to "${schema}";`);
    }
  } catch (error) {
    lock?.release();
    throw error;
  }

  // PGlite is single-connection: queue transactions so a query from elsewhere can't land inside one.
  let queue: Promise<unknown> = Promise.resolve();
  const serialize = <T>(task: () => Promise<T>): Promise<T> => {
    const next = queue.then(task, task);
    queue = next.catch(() => {});
    return next;
  };

  const run = async <Row>(
    q: Pick<PGlite, 'query'>,
    sql: string,
    params?: unknown[],
  ): Promise<QueryResult<Row>> => {
    const result = await q.query<Row>(sql, params);
    return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
  };

  let closed = false;
  return {
    kind: 'pglite',
    pgPool: undefined,
    query: (sql, params) => serialize(() => run(pglite, sql, params)),
    async exec(sql) {
      await serialize(() => pglite.exec(sql));
    },
    transaction(fn) {
      return serialize(() =>
        pglite.transaction(async (t) => {
          const tx: Queryable = {
            query: (sql, params) => run(t, sql, params),
            exec: async (sql) => {
              await t.exec(sql);
            },
          };
          return fn(tx);
        }),
      );
    },
    async ping() {
      await serialize(() => pglite.query('select 1'));
    },
    async listen(channel, onNotify) {
      const channels = channelList(channel);
      // One in-process connection: it never drops, so onConnectionChange is never called.
      const unlisten = await serialize(() =>
        Promise.all(channels.map((c) => pglite.listen(c, (payload) => onNotify(payload, c)))),
      );
      let done = false;
      return {
        async notify(to, payload) {
          await serialize(() => pglite.query('select pg_notify($1, $2)', [to, payload]));
        },
        async close() {
          if (done || closed) return;
          done = true;
          await serialize(() => Promise.all(unlisten.map((u) => u())));
        },
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      await queue;
      try {
        await pglite.close();
      } finally {
        lock?.release();
      }
    },
  };
}
