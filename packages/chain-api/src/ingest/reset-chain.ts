import type { Database } from '@sluice/db';
import { announceStoreChange, publishStoreChange } from '../store/changes/publish-store-change.js';
import { StoreChangeBuilder } from '../store/changes/store-change.js';

/**
 * Deletes everything indexed for one chain (every table of the store's schema with a `chain_id`
 * column: blocks, activity, balances, pools, prices, NFT data, checkpoint, ...), in one
 * transaction, so the next start re-indexes it from its start block. Returns rows deleted per
 * table (tables with none omitted).
 *
 * @example
 * const deleted = await resetChainData(db, 31337); // { activity: 1200, blocks: 81, ... }
 */
export async function resetChainData(
  db: Database,
  chainId: number,
): Promise<Record<string, number>> {
  return db.transaction(async (tx) => {
    // Other chains' cached answers stay valid.
    await announceStoreChange(tx);
    const { rows } = await tx.query<{ table_name: string }>(
      `select c.table_name from information_schema.columns c
         join information_schema.tables t
           on t.table_schema = c.table_schema and t.table_name = c.table_name
        where c.table_schema = current_schema() and c.column_name = 'chain_id'
          and t.table_type = 'BASE TABLE'
        order by c.table_name`,
    );
    const deleted: Record<string, number> = {};
    for (const { table_name } of rows) {
      const quoted = `"${table_name.replaceAll('"', '""')}"`;
      const r = await tx.query(`delete from ${quoted} where chain_id = $1`, [chainId]);
      const n = r.rowCount ?? 0;
      if (n > 0) deleted[table_name] = n;
    }
    await publishStoreChange(tx, new StoreChangeBuilder().everything(chainId));
    return deleted;
  });
}
