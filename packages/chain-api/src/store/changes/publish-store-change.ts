import type { Queryable } from '@sluice/db';
import { STORE_CHANGED_CHANNEL } from './store-change.js';
import type { StoreChangeBuilder } from './store-change-builder.js';

/**
 * Tells the served tables' statement triggers that this transaction announces its own change
 * (with `publishStoreChange`), so they do not send a coarse "anything changed" for the schema.
 * Call it before the transaction's first write to a served table; transaction-local, so it ends
 * with the transaction. A writer that announces and then does not publish leaves answers stale,
 * so every announcing writer publishes in the same transaction.
 *
 * @example
 * await db.transaction(async (tx) => {
 *   await announceStoreChange(tx);
 *   // ... writes ...
 *   await publishStoreChange(tx, change);
 * });
 */
export async function announceStoreChange(tx: Queryable): Promise<void> {
  await tx.query(`select set_config('sluice.store_change', 'announced', true)`);
}

/**
 * Sends what the transaction touched as `NOTIFY sluice_store_changed` messages (one or a few,
 * delivered at commit, never for a rollback), stamped with the store's schema and the primary's
 * WAL position (see store-change.ts for the format). One round trip; nothing when empty.
 *
 * @example
 * await publishStoreChange(tx, new StoreChangeBuilder().wallet(1, wallet));
 */
export async function publishStoreChange(tx: Queryable, change: StoreChangeBuilder): Promise<void> {
  if (change.empty) return;
  await tx.query(
    `select sluice_notify_store_change(current_schema(), b) from unnest($1::text[]) as b`,
    [change.encode()],
  );
}

export { STORE_CHANGED_CHANNEL };
