import type { NewUser, Page, UserFields } from '../user-input.js';

/** A stored user record as the API returns it. */
export interface User {
  _id: string;
  id: number;
  name: string;
  pro: string;
}

/** One page of users, already serialized as a JSON array (built by the database). */
export interface UserPageJson {
  total: number;
  json: string;
  /** Table version the page was read at; changes with every committed write. */
  version: string;
}

/** The storage the routes need; the SQL implementation is in sql-user-store.ts. */
export interface UserStore {
  /** A page ordered by `id`, as a JSON array string, plus the total count. */
  listJson(page: Page): Promise<UserPageJson>;
  /** A page ordered by `id`, as records (for the HTML list). */
  list(page: Page): Promise<{ total: number; users: User[] }>;
  get(id: number): Promise<User | undefined>;
  /** Inserts the record; `undefined` when the id is already taken. */
  create(user: NewUser): Promise<User | undefined>;
  /** Replaces name and pro; `undefined` when there is no such id. */
  update(id: number, fields: UserFields): Promise<User | undefined>;
  /** `true` when a record was deleted. */
  remove(id: number): Promise<boolean>;
  /** Throws when the database cannot answer. */
  ping(): Promise<void>;
}
