import { randomBytes } from 'node:crypto';
import type { NewUser, Page, UserFields } from '../user-input.js';
import { newObjectId } from './object-id.js';
import type { User, UserPageJson, UserStore } from './user-store.js';

/** The slice of `@sluice/db`'s Database the store uses (PostgreSQL or PGlite, same SQL). */
export interface Queryable {
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[]; rowCount?: number | null }>;
}

// pg returns bigint as a string; ids are safe integers by construction.
interface UserRow {
  _id: string;
  id: number | string;
  name: string;
  pro: string;
}

const COLUMNS = '_id, id, name, pro';
/** Pages kept serialized (at most 1,000 records each, so a few MB at worst). */
const PAGE_CACHE_ENTRIES = 16;

// PostgreSQL builds the JSON array itself: the service forwards one string instead of parsing
// 1,000 rows and serializing them again, which is what makes GET /users cheap.
// One statement, so version, total and page come from the same snapshot.
const LIST_JSON_SQL = `
  select (select sum(v) from users_version)::text as version,
    (select count(*) from users) as total,
    coalesce(
      (select '[' || string_agg(row_to_json(u)::text, ',' order by u.id) || ']'
         from (select ${COLUMNS} from users order by id limit $1 offset $2) u),
      '[]') as json`;
const VERSION_SQL = 'select sum(v)::text as version from users_version';
const LIST_SQL = `select ${COLUMNS}, count(*) over () as total from users order by id limit $1 offset $2`;
const GET_SQL = `select ${COLUMNS} from users where id = $1`;
// ON CONFLICT keeps a duplicate id a normal outcome (no rowCount) instead of an exception, and
// the primary key makes concurrent inserts of one id race-free.
const INSERT_SQL = `insert into users (_id, id, name, pro) values ($1, $2, $3, $4)
  on conflict (id) do nothing returning ${COLUMNS}`;
const UPDATE_SQL = `update users set name = $2, pro = $3, updated_at = now() where id = $1
  returning ${COLUMNS}`;
const DELETE_SQL = 'delete from users where id = $1';

function toUser(row: UserRow): User {
  return { _id: row._id, id: Number(row.id), name: row.name, pro: row.pro };
}

export interface SqlUserStoreOptions {
  /**
   * The store is the only writer of the table (embedded PGlite: one process owns the folder).
   * Cached `GET /users` pages are then invalidated locally instead of revalidated with a query.
   * Leave it off for PostgreSQL, where other processes may write.
   */
  soleWriter?: boolean;
}

/**
 * A UserStore over plain SQL.
 *
 * @example
 * import { migrate, openDatabase } from '@sluice/db';
 * const db = await openDatabase({ url: process.env.DATABASE_URL, dataDir: './data' });
 * await migrate(db, userMigrations);
 * const store = createSqlUserStore(db);
 */
export function createSqlUserStore(db: Queryable, options: SqlUserStoreOptions = {}): UserStore {
  const soleWriter = options.soleWriter ?? false;
  // Serialized pages by limit:offset, each valid for one table version (see migration 002).
  const pageCache = new Map<string, UserPageJson>();
  // Sole-writer mode: a local version, bumped after every write through this store. The boot id
  // keeps ETags from one process life from matching another's.
  const bootId = randomBytes(4).toString('hex');
  let generation = 0;
  const localVersion = () => `${bootId}.${generation}`;
  const written = <T>(result: Promise<T>): Promise<T> =>
    result.finally(() => {
      generation += 1;
    });

  const remember = (key: string, page: UserPageJson) => {
    if (pageCache.size >= PAGE_CACHE_ENTRIES) {
      const oldest = pageCache.keys().next().value;
      if (oldest !== undefined) pageCache.delete(oldest);
    }
    pageCache.set(key, page);
  };

  return {
    async listJson(page: Page): Promise<UserPageJson> {
      const key = `${page.limit}:${page.offset}`;
      const cached = pageCache.get(key);
      if (soleWriter) {
        if (cached?.version === localVersion()) return cached;
        const version = localVersion();
        const { rows } = await db.query<{ total: string | number; json: string }>(LIST_JSON_SQL, [
          page.limit,
          page.offset,
        ]);
        const result = {
          total: Number(rows[0]?.total ?? 0),
          json: rows[0]?.json ?? '[]',
          version,
        };
        // A write that finished while we read may or may not be in `rows`: then don't keep it.
        if (version === localVersion()) remember(key, result);
        return result;
      }
      if (cached) {
        // Revalidate: the version changes with every committed write, from any process.
        const { rows } = await db.query<{ version: string }>(VERSION_SQL);
        if (rows[0]?.version === cached.version) return cached;
        pageCache.delete(key);
      }
      const { rows } = await db.query<{ version: string; total: string | number; json: string }>(
        LIST_JSON_SQL,
        [page.limit, page.offset],
      );
      const row = rows[0];
      const result = {
        total: Number(row?.total ?? 0),
        json: row?.json ?? '[]',
        version: row?.version ?? '0',
      };
      remember(key, result);
      return result;
    },
    async list(page: Page) {
      const { rows } = await db.query<UserRow & { total: string | number }>(LIST_SQL, [
        page.limit,
        page.offset,
      ]);
      if (rows.length === 0 && page.offset > 0) {
        // Past the end: the window count is unavailable without rows.
        const count = await db.query<{ total: string | number }>(
          'select count(*) as total from users',
        );
        return { total: Number(count.rows[0]?.total ?? 0), users: [] };
      }
      return { total: Number(rows[0]?.total ?? 0), users: rows.map(toUser) };
    },
    async get(id: number) {
      const { rows } = await db.query<UserRow>(GET_SQL, [id]);
      return rows[0] ? toUser(rows[0]) : undefined;
    },
    async create(user: NewUser) {
      const { rows } = await written(
        db.query<UserRow>(INSERT_SQL, [newObjectId(), user.id, user.name, user.pro]),
      );
      return rows[0] ? toUser(rows[0]) : undefined;
    },
    async update(id: number, fields: UserFields) {
      const { rows } = await written(db.query<UserRow>(UPDATE_SQL, [id, fields.name, fields.pro]));
      return rows[0] ? toUser(rows[0]) : undefined;
    },
    async remove(id: number) {
      const { rowCount } = await written(db.query(DELETE_SQL, [id]));
      return (rowCount ?? 0) > 0;
    },
    async ping() {
      await db.query('select 1');
    },
  };
}
