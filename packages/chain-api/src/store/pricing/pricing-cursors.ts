import type { Queryable } from '@sluice/db';

/** The pricing worker's position on a chain; `epoch` moves when a rollback rewinds it. */
export interface PricingCursor {
  lastBlock: bigint;
  epoch: string;
}

/**
 * Creates the chain's pricing cursor (before its first block) unless it exists, recording the
 * chain's anchors for the queries; returns where it is.
 */
export async function openPricingCursor(
  db: Queryable,
  chainId: number,
  anchors: { wrappedNative: string | null; stablecoins: readonly string[] },
): Promise<PricingCursor> {
  const { rows } = await db.query<{ last_block: string; epoch: string }>(
    `insert into pricing_cursors (chain_id, last_block, wrapped_native, stablecoins)
     values ($1, -1, $2, $3::text[])
     on conflict (chain_id) do update set wrapped_native = excluded.wrapped_native,
       stablecoins = excluded.stablecoins
     returning last_block, epoch`,
    [chainId, anchors.wrappedNative, [...anchors.stablecoins]],
  );
  const row = rows[0] as { last_block: string; epoch: string };
  return { lastBlock: BigInt(row.last_block), epoch: row.epoch };
}

/**
 * Moves the cursor from `cursor.lastBlock` to `to` unless a rollback moved it meanwhile (epoch
 * or block changed); returns whether it moved.
 */
export async function advancePricingCursor(
  tx: Queryable,
  chainId: number,
  cursor: PricingCursor,
  to: bigint,
): Promise<boolean> {
  const moved = await tx.query(
    `update pricing_cursors set last_block = $3::bigint, updated_at = now()
      where chain_id = $1 and epoch = $2::bigint and last_block = $4::bigint`,
    [chainId, cursor.epoch, to.toString(), cursor.lastBlock.toString()],
  );
  return moved.rowCount === 1;
}
