export { type AppOptions, buildApp } from './app.js';
export { type Config, ConfigError, loadConfig } from './config.js';
export { type ErrorBody, type ErrorCode, errorCatalogue, UsersError } from './errors.js';
export { type RunningServer, startServer } from './server.js';
export { userMigrations } from './store/migrations.js';
export { newObjectId } from './store/object-id.js';
export { createSqlUserStore, type SqlUserStoreOptions } from './store/sql-user-store.js';
export type { User, UserStore } from './store/user-store.js';
export {
  DEFAULT_LIMIT,
  MAX_LIMIT,
  MAX_TEXT_LENGTH,
  type NewUser,
  type Page,
  type UserFields,
} from './user-input.js';
