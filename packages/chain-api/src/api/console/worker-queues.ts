import type { Queryable } from '@sluice/db';

/** A background worker's backlog on one chain, as the console shows it. */
export interface WorkerQueue {
  name: string;
  queue: number;
  detail: string;
}

interface QueueRow {
  chain_id: number;
  metadata_pending: string | null;
  metadata_failed: string | null;
  collections_pending: string | null;
  unscored: string | null;
  spam: string | null;
  priced_block: string | null;
  dirty_prices: string | null;
}

/**
 * The backlogs of the pricing, NFT metadata and spam-score workers per chain, read from their
 * own tables (so an API-only replica sees them too). Each uses a partial index of its queue.
 */
export async function readWorkerQueues(
  db: Queryable,
  chainIds: readonly number[],
): Promise<Map<number, WorkerQueue[]>> {
  const { rows } = await db.query<QueueRow>(
    `select c.id as chain_id,
            (select count(*) from nft_metadata m where m.chain_id = c.id and m.status = 'pending')::text as metadata_pending,
            (select count(*) from nft_metadata m where m.chain_id = c.id and m.status = 'failed')::text as metadata_failed,
            (select count(*) from nft_collections n where n.chain_id = c.id and n.info_status <> 'ok')::text as collections_pending,
            (select count(*) from nft_collections n where n.chain_id = c.id and n.scored_at is null)::text as unscored,
            (select count(*) from nft_collections n where n.chain_id = c.id and n.is_spam)::text as spam,
            (select last_block from pricing_cursors p where p.chain_id = c.id)::text as priced_block,
            (select count(*) from token_prices t where t.chain_id = c.id and t.dirty)::text as dirty_prices
       from unnest($1::int[]) as c(id)`,
    [chainIds],
  );
  const out = new Map<number, WorkerQueue[]>();
  for (const row of rows) {
    const n = (value: string | null) => Number(value ?? 0);
    out.set(row.chain_id, [
      {
        name: 'pricing',
        queue: n(row.dirty_prices),
        detail: row.priced_block === null ? 'not started' : `priced to block ${row.priced_block}`,
      },
      {
        name: 'NFT metadata',
        queue: n(row.metadata_pending) + n(row.collections_pending),
        detail: `${n(row.metadata_failed)} failed (retried later)`,
      },
      {
        name: 'spam scores',
        queue: n(row.unscored),
        detail: `${n(row.spam)} collection(s) marked spam`,
      },
    ]);
  }
  return out;
}
