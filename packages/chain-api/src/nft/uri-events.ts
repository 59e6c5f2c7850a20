import type { Queryable } from '@sluice/db';
import { requeueForUriEvent, saveUriEventCursor } from '../store/nft/nft-cursors.js';

/** topic0 of ERC-1155 `URI(string value, uint256 indexed id)`. */
export const erc1155UriTopic = '0x6bb7ff708619ba0610cba295a58592e0451dee2622938c8755667688daf3529b';

/**
 * Re-queues tokens whose ERC-1155 `URI` event was indexed since the last pass (the ERC-4906
 * events are handled by the indexer itself). Reads the indexer's raw `logs` table from a
 * per-chain cursor kept `finalityDepth` blocks behind the indexed height, so events of the
 * unfinalized window are looked at again after a reorg; re-queueing is idempotent because a row is
 * only re-queued for an event newer than its last refresh (`refresh_block`). Returns how many
 * tokens were re-queued.
 */
export async function requeueUriEvents(
  db: Queryable,
  chains: ReadonlyArray<{ chainId: number; finalityDepth: number }>,
): Promise<number> {
  let requeued = 0;
  for (const chain of chains) {
    const { rows: cp } = await db.query<{ indexed: string | null; cursor: string | null }>(
      `select (select indexed_block::text from checkpoints where chain_id = $1) as indexed,
              (select uri_event_block::text from nft_cursors where chain_id = $1) as cursor`,
      [chain.chainId],
    );
    const indexed = cp[0]?.indexed;
    if (indexed === null || indexed === undefined) continue;
    const from = BigInt(cp[0]?.cursor ?? '-1');
    const { rows } = await db.query<{
      block_number: string;
      address: string;
      topic1: string | null;
    }>(
      `select block_number::text as block_number, address, topic1 from logs
        where chain_id = $1 and block_number > $2::bigint and block_number <= $3::bigint and topic0 = $4`,
      [chain.chainId, from.toString(), indexed, erc1155UriTopic],
    );
    for (const row of rows) {
      if (!row.topic1 || !/^0x[0-9a-fA-F]{1,64}$/.test(row.topic1)) continue;
      const contract = row.address.toLowerCase();
      const tokenId = BigInt(row.topic1);
      if (await requeueForUriEvent(db, chain.chainId, contract, tokenId, row.block_number)) {
        requeued++;
      }
    }
    const next = BigInt(indexed) - BigInt(chain.finalityDepth);
    if (next > from) {
      await saveUriEventCursor(db, chain.chainId, next);
    }
  }
  return requeued;
}
