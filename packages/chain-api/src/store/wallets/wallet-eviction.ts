import type { Queryable } from '@sluice/db';

/** How many wallets the keys of a chain may track. */
export interface WalletCaps {
  /** Wallets one API key tracks at most (its least recently requested beyond are dropped). */
  perKey: number;
  /** Wallets the chain tracks at most; the operator ('' key) is bounded by this alone. */
  total: number;
}

/**
 * Each key's limit: its own cap (`perKey`, or `total` for the operator), lowered by water-filling
 * when all keys together exceed `total`: the keys holding the most wallets are cut to a common
 * level first, so a key tracking a few wallets is never cut for a key tracking many.
 *
 * @example
 * keyLimits(new Map([['a', 100], ['b', 5]]), { perKey: 100, total: 50 }); // a -> 45, b -> 5
 */
export function keyLimits(
  counts: ReadonlyMap<string, number>,
  caps: WalletCaps,
): Map<string, number> {
  const own = new Map<string, number>();
  for (const [key, n] of counts) own.set(key, Math.min(n, key === '' ? caps.total : caps.perKey));
  const sumAt = (level: number) => {
    let sum = 0;
    for (const n of own.values()) sum += Math.min(n, level);
    return sum;
  };
  const highest = Math.max(0, ...own.values());
  if (sumAt(highest) <= caps.total) return own;
  let lo = 0;
  let hi = highest;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (sumAt(mid) <= caps.total) lo = mid;
    else hi = mid - 1;
  }
  return new Map([...own].map(([key, n]) => [key, Math.min(n, lo)]));
}

/**
 * Drops every key's least recently requested wallets beyond its limit (`keyLimits`), then stops
 * tracking the wallets no key tracks any more and returns them (the caller deletes their data in
 * the same transaction). Run in a transaction.
 *
 * @example
 * const gone = await evictBeyondCaps(tx, 1, { perKey: 10_000, total: 100_000 });
 */
export async function evictBeyondCaps(
  tx: Queryable,
  chainId: number,
  caps: WalletCaps,
): Promise<string[]> {
  const { rows: counts } = await tx.query<{ key_id: string; n: string }>(
    'select key_id, count(*)::text as n from tracked_wallet_owners where chain_id = $1 group by key_id',
    [chainId],
  );
  const have = new Map(counts.map((r) => [r.key_id, Number(r.n)]));
  const over = [...keyLimits(have, caps)].filter(([key, limit]) => (have.get(key) ?? 0) > limit);
  if (over.length > 0) {
    // Two steps: the ranking reads the keys' rows once; the delete is then a primary-key lookup
    // per dropped row (as one join, with no statistics on the table, the planner re-ranked the
    // rows for every row it deleted).
    const { rows: doomed } = await tx.query<{ key_id: string; wallet: string }>(
      `select r.key_id, r.wallet
         from (select o.key_id, o.wallet,
                      row_number() over (partition by o.key_id order by o.requested_at desc, o.wallet) as rn
                 from tracked_wallet_owners o
                where o.chain_id = $1 and o.key_id = any($2::text[])) r
         join unnest($2::text[], $3::int[]) as l(key_id, n) on l.key_id = r.key_id
        where r.rn > l.n`,
      [chainId, over.map(([key]) => key), over.map(([, limit]) => limit)],
    );
    await tx.query(
      `delete from tracked_wallet_owners o
        using unnest($2::text[], $3::text[]) as d(key_id, wallet)
        where o.chain_id = $1 and o.key_id = d.key_id and o.wallet = d.wallet`,
      [chainId, doomed.map((r) => r.key_id), doomed.map((r) => r.wallet)],
    );
  }
  // Also picks up wallets whose owners were dropped some other way.
  const { rows } = await tx.query<{ wallet: string }>(
    `delete from tracked_wallets t
      where t.chain_id = $1
        and not exists (select 1 from tracked_wallet_owners o
                         where o.chain_id = t.chain_id and o.wallet = t.wallet)
      returning t.wallet`,
    [chainId],
  );
  return rows.map((r) => r.wallet);
}
