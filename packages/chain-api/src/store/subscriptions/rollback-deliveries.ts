import type { Queryable } from '@sluice/db';
import { notifyOutbox } from './queue-deliveries.js';

/**
 * The webhook outbox's part of a rollback of `chain` to `target` (in the rollback's transaction):
 * deliveries of replaced blocks never attempted are dropped; for each one attempted (delivered,
 * failed, waiting for a retry or out right now) a removal delivery is queued carrying the same
 * items with `"removed": true`, and the original is marked superseded (no more retries). Removals
 * are queued before the new branch's deliveries, so receivers see them first; a later rollback
 * never touches them. Returns the number of removals queued.
 *
 * @example
 * await rollbackWebhookDeliveries(tx, 1, 120n);
 */
export async function rollbackWebhookDeliveries(
  tx: Queryable,
  chain: number,
  target: bigint,
): Promise<number> {
  const { rows } = await tx.query<{ present: boolean }>(
    `select to_regclass('webhook_deliveries') is not null as present`,
  );
  // A store migrated with the indexer's migrations alone has no outbox.
  if (rows[0]?.present !== true) return 0;
  const replaced = `chain_id = $1 and block_number > $2 and not removal and not superseded`;
  const params = [chain, target.toString()];
  const { rowCount } = await tx.query(
    `insert into webhook_deliveries
       (webhook_id, chain_id, block_number, block_hash, removal, items, item_count)
     select d.webhook_id, d.chain_id, d.block_number, d.block_hash, true,
            (select jsonb_agg(e.item || '{"removed": true}'::jsonb order by e.ord)
               from jsonb_array_elements(d.items) with ordinality as e (item, ord)),
            d.item_count
       from webhook_deliveries d
      where ${replaced} and d.attempts > 0
      order by d.seq`,
    params,
  );
  await tx.query(
    `update webhook_deliveries
        set superseded = true, updated_at = now(),
            status = case when status = 'pending' then 'superseded' else status end
      where ${replaced} and attempts > 0`,
    params,
  );
  await tx.query(`delete from webhook_deliveries where ${replaced} and attempts = 0`, params);
  if (rowCount > 0) await notifyOutbox(tx);
  return rowCount;
}
