import type { Queryable } from '@sluice/db';

/** A collection whose name/symbol still have to be read. */
export interface PendingCollection {
  chainId: number;
  contract: string;
  attempts: number;
}

/**
 * Fills collection name/symbol from the indexer's `tokens` table where it already has them (no
 * RPC call needed), then returns the collections still lacking a name, due for a contract read.
 */
export async function collectionsDue(
  db: Queryable,
  chainIds: readonly number[],
  limit: number,
): Promise<PendingCollection[]> {
  await db.query(
    `update nft_collections c
        set name = t.name, symbol = t.symbol, info_status = 'ok'
       from tokens t
      where c.info_status <> 'ok' and t.chain_id = c.chain_id and t.address = c.contract
        and t.status in ('ok', 'partial') and (t.name is not null or t.symbol is not null)`,
  );
  const { rows } = await db.query<{ chain_id: number; contract: string; info_attempts: number }>(
    `select chain_id, contract, info_attempts from nft_collections
      where info_status <> 'ok' and info_next_attempt <= now() and chain_id = any($1::int[])
      order by info_next_attempt limit $2`,
    [chainIds, limit],
  );
  return rows.map((r) => ({
    chainId: r.chain_id,
    contract: r.contract,
    attempts: r.info_attempts,
  }));
}

/** Stores a collection's name/symbol (either may be null: the contract has none). */
export async function saveCollectionInfo(
  db: Queryable,
  collection: PendingCollection,
  info: { name: string | null; symbol: string | null },
): Promise<void> {
  await db.query(
    `update nft_collections set name = $3, symbol = $4, info_status = 'ok', scored_at = null
      where chain_id = $1 and contract = $2`,
    [collection.chainId, collection.contract, info.name, info.symbol],
  );
}

/** Records a failed name/symbol read (node unreachable), retried after `delayMs`. */
export async function saveCollectionFailure(
  db: Queryable,
  collection: PendingCollection,
  delayMs: number,
): Promise<void> {
  await db.query(
    `update nft_collections
        set info_status = 'failed', info_attempts = info_attempts + 1,
            info_next_attempt = now() + make_interval(secs => $3::double precision / 1000)
      where chain_id = $1 and contract = $2`,
    [collection.chainId, collection.contract, delayMs],
  );
}

/**
 * Sets the first-seen time of collections that lack it: the block time of the contract's first
 * indexed event (`tokens.first_block`), else the earliest current holding. The spam model's
 * young-collection rule reads it.
 */
export async function fillFirstSeen(db: Queryable): Promise<void> {
  await db.query(
    `update nft_collections c
        set first_seen_at = coalesce(
              (select b.timestamp from tokens t join blocks b on b.chain_id = t.chain_id and b.number = t.first_block
                where t.chain_id = c.chain_id and t.address = c.contract),
              (select min(h.last_acquired) from nft_holdings h
                where h.chain_id = c.chain_id and h.contract = c.contract))
      where c.first_seen_at is null`,
  );
}
