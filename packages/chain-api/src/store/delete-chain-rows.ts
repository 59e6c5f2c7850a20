import type { Queryable } from '@sluice/db';

/**
 * Deletes every row of one chain from every table of the store's schema with a `chain_id`
 * column (inside the caller's transaction). Returns rows deleted per table (none omitted).
 */
export async function deleteChainRows(
  tx: Queryable,
  chainId: number,
): Promise<Record<string, number>> {
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
  return deleted;
}
