export { type BulkColumn, bulkInsert } from './bulk-insert.js';
export { chainMigrations } from './migrations.js';
export { rollbackTo, snapshotForUndo } from './undo-log.js';
export { CheckpointConflictError, type WriteBatchInput, writeBatch } from './write-batch.js';
