export { type BulkColumn, bulkInsert } from './bulk-insert.js';
export { chainMigrations } from './migrations.js';
export { type CopyQueryable, withCopyTransaction } from './pg-copy.js';
export { writeNewTokens, writePoolRows, writePoolStateRows } from './pool-and-token-rows.js';
export { rollbackTo, snapshotForUndo } from './undo-log.js';
export {
  type BatchRowsInput,
  CheckpointConflictError,
  type StoreLogs,
  type WriteBatchInput,
  writeBatch,
  writeBatchRows,
} from './write-batch.js';
