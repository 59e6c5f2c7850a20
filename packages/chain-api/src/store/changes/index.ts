export { changeFunctionMigrations, changeMigrations } from './change-migrations.js';
export { announceStoreChange, publishStoreChange } from './publish-store-change.js';
export {
  CHANGE_KEY_LENGTH,
  type ChainStoreChange,
  changeKey,
  MAX_NOTIFY_BYTES,
  parseStoreChange,
  STORE_CHANGED_CHANNEL,
  type StoreChange,
} from './store-change.js';
export { StoreChangeBuilder } from './store-change-builder.js';
