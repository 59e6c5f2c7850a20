import type { Queryable } from '@sluice/db';

/** How history is thinned: points older than `olderThanMs` keep one per `bucketMinutes`. */
export interface CompactionPolicy {
  olderThanMs: number;
  bucketMinutes: number;
}

export const DEFAULT_COMPACTION: CompactionPolicy = {
  olderThanMs: 60 * 60 * 1000,
  bucketMinutes: 5,
};

/**
 * Keeps, for each token, only the last point of every 5-minute bucket among points older than an
 * hour and at or below the finalized block (a reorg can never need them back). The last point of
 * a bucket is what "price at or before T" answers for any T after it, so answers at bucket edges
 * do not change. Only buckets that received points above the chain's `compacted_block` watermark
 * are re-ranked, so each run's work is proportional to what is new. Returns rows deleted.
 *
 * @example
 * await compactPriceHistory(db, 1, new Date(), 19_000_000n);
 */
export async function compactPriceHistory(
  db: Queryable,
  chainId: number,
  now: Date,
  finalizedBlock: bigint,
  policy: CompactionPolicy = DEFAULT_COMPACTION,
): Promise<number> {
  const cutoff = new Date(now.getTime() - policy.olderThanMs).toISOString();
  const bucket = `${policy.bucketMinutes} minutes`;
  const final = finalizedBlock.toString();
  const { rows } = await db.query<{ compacted_block: string }>(
    'select compacted_block from pricing_cursors where chain_id = $1',
    [chainId],
  );
  const since = rows[0]?.compacted_block ?? '-1';
  const { rowCount } = await db.query(
    `with touched as (
       select distinct token, date_bin($5::interval, time, timestamptz '2000-01-01') as bucket
         from price_history
        where chain_id = $1 and block_number > $4::bigint and block_number <= $3::bigint
          and time < $2::timestamptz
     ), ranked as (
       select p.token, p.block_number,
              row_number() over (partition by p.token, t.bucket
                                 order by p.time desc, p.block_number desc) as rn
         from touched t
         join price_history p on p.chain_id = $1 and p.token = t.token
          and p.time >= t.bucket and p.time < t.bucket + $5::interval
        where p.time < $2::timestamptz and p.block_number <= $3::bigint
     )
     delete from price_history h using ranked r
      where r.rn > 1 and h.chain_id = $1 and h.token = r.token and h.block_number = r.block_number`,
    [chainId, cutoff, final, since, bucket],
  );
  // The watermark stops below the first final point that is still too young to compact.
  await db.query(
    `update pricing_cursors set compacted_block = greatest(compacted_block, least($3::bigint, coalesce((
        select min(block_number) - 1 from price_history
         where chain_id = $1 and block_number > $4::bigint and block_number <= $3::bigint
           and time >= $2::timestamptz), $3::bigint)))
      where chain_id = $1`,
    [chainId, cutoff, final, since],
  );
  return rowCount;
}
