export { DatabaseError, isDatabaseUnavailable, sqlState } from './database-error.js';
export { DatabaseLockedError, type FolderLock, lockFolder } from './folder-lock.js';
export { type MigrateOptions, migrate } from './migrate.js';
export { openDatabase } from './open-database.js';
export type {
  Database,
  DatabaseKind,
  Listener,
  ListenOptions,
  Migration,
  OpenDatabaseOptions,
  Queryable,
  QueryResult,
} from './types.js';
