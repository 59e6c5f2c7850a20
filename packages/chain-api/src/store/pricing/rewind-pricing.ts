import type { Queryable } from '@sluice/db';

/** Whether the pricing tables exist (a store migrated without pricingMigrations has none). */
export async function pricingTablesPresent(tx: Queryable): Promise<boolean> {
  const { rows } = await tx.query<{ present: boolean }>(
    `select to_regclass('pricing_cursors') is not null as present`,
  );
  return rows[0]?.present === true;
}

/**
 * Rewinds the pricing worker's cursor of `chainId` to `block` at most, bumping its epoch so a
 * worker transaction that raced with the rewind aborts instead of committing stale prices.
 */
export async function rewindPricingCursor(
  tx: Queryable,
  chainId: number,
  block: bigint,
): Promise<void> {
  await tx.query(
    `update pricing_cursors set last_block = least(last_block, $2::bigint), epoch = epoch + 1,
       compacted_block = least(compacted_block, $2::bigint),
       updated_at = now() where chain_id = $1`,
    [chainId, block.toString()],
  );
}

/** Deletes price points above `block` and marks current prices written above it dirty. */
export async function dropPricesAbove(
  tx: Queryable,
  chainId: number,
  block: bigint,
): Promise<void> {
  const b = block.toString();
  await tx.query('delete from price_history where chain_id = $1 and block_number > $2::bigint', [
    chainId,
    b,
  ]);
  await tx.query(
    'update token_prices set dirty = true where chain_id = $1 and updated_block > $2::bigint',
    [chainId, b],
  );
}
