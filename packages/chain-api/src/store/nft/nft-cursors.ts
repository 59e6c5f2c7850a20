import type { Queryable } from '@sluice/db';

/** Moves the discovery cursor to `block`, with the stored hash of that block ('' if none). */
export async function saveDiscoveryCursor(
  db: Queryable,
  chainId: number,
  block: bigint,
): Promise<void> {
  await db.query(
    `insert into nft_discovery_cursors (chain_id, block, hash)
     select $1, $2::bigint, coalesce((select hash from blocks where chain_id = $1 and number = $2::bigint), '')
     on conflict (chain_id) do update set block = excluded.block, hash = excluded.hash`,
    [chainId, block.toString()],
  );
}

/** Moves the ERC-1155 URI event cursor to `block`. */
export async function saveUriEventCursor(
  db: Queryable,
  chainId: number,
  block: bigint,
): Promise<void> {
  await db.query(
    `insert into nft_cursors (chain_id, uri_event_block) values ($1, $2)
     on conflict (chain_id) do update set uri_event_block = excluded.uri_event_block`,
    [chainId, block.toString()],
  );
}

/**
 * Re-queues a token's metadata for an ERC-1155 URI event at `block`, unless a refresh at or
 * after it was requested already; returns whether it was re-queued.
 */
export async function requeueForUriEvent(
  db: Queryable,
  chainId: number,
  contract: string,
  tokenId: bigint,
  block: string,
): Promise<boolean> {
  const result = await db.query(
    `update nft_metadata
        set status = 'pending', next_attempt = now(), attempts = 0, refresh_block = $4::bigint
      where chain_id = $1 and contract = $2 and token_id = $3::numeric
        and (refresh_block is null or refresh_block < $4::bigint)`,
    [chainId, contract, tokenId.toString(), block],
  );
  return result.rowCount > 0;
}
