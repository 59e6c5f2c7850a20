import type { Queryable } from '@sluice/db';

/** One "price of this token at this time" question. `token` is a lower-case address or 'native'. */
export interface PriceAtQuery {
  chainId: number;
  token: string;
  time: Date;
}

/**
 * USD price of each token at each time: the latest price point at or before it, null when there
 * is none or the token was unpriced then (callers omit such entries, never report 0).
 * Configured stablecoins are always 1; 'native' is the wrapped native; tokens routed through the
 * wrapped native are re-valued with the wrapped native's price at that same time, so they follow
 * ETH moves between their own pool's changes. One SQL statement for any number of questions;
 * the answer array is aligned with `queries`.
 *
 * @example
 * const now = Date.now();
 * const [h1, h24] = await pricesAt(db, [1, 24].map((h) => ({ chainId: 1, token, time: new Date(now - h * 3600_000) })));
 */
export async function pricesAt(
  db: Queryable,
  queries: readonly PriceAtQuery[],
): Promise<(number | null)[]> {
  if (queries.length === 0) return [];
  const { rows } = await db.query<{ i: string; price_usd: number | null }>(
    `with q as (
       select * from unnest($1::int[], $2::text[], $3::timestamptz[]) with ordinality as q(chain_id, token, t, i)
     ), r as (
       select q.i, q.chain_id, q.t, c.wrapped_native,
              case when q.token = 'native' then c.wrapped_native else lower(q.token) end as token,
              coalesce(lower(q.token) = any(c.stablecoins), false) as stable
         from q left join pricing_cursors c on c.chain_id = q.chain_id
     )
     select r.i,
            case when r.stable then 1::float8
                 when p.price_usd is null then null
                 when p.quote = r.wrapped_native and r.token <> r.wrapped_native and w.price_usd is not null
                   then p.price_in_quote * w.price_usd
                 else p.price_usd end as price_usd
       from r
       left join lateral (
         select h.price_usd, h.quote, h.price_in_quote from price_history h
          where h.chain_id = r.chain_id and h.token = r.token and h.time <= r.t
          order by h.time desc, h.block_number desc limit 1
       ) p on true
       left join lateral (
         select h2.price_usd from price_history h2
          where p.quote = r.wrapped_native and h2.chain_id = r.chain_id and h2.token = r.wrapped_native
            and h2.time <= r.t
          order by h2.time desc, h2.block_number desc limit 1
       ) w on true`,
    [
      queries.map((q) => q.chainId),
      queries.map((q) => q.token),
      queries.map((q) => q.time.toISOString()),
    ],
  );
  const out: (number | null)[] = new Array(queries.length).fill(null);
  for (const row of rows)
    out[Number(row.i) - 1] = row.price_usd === null ? null : Number(row.price_usd);
  return out;
}

/**
 * `historical_prices` entries for one token: `{offset_hours, price_usd}` per offset that has a
 * price at `now - offset` hours, in the order asked; offsets without a price are left out.
 *
 * @example
 * await historicalPrices(db, 1, token, [1, 24, 168], new Date()) // [{offset_hours: 1, price_usd: 3012.5}, ...]
 */
export async function historicalPrices(
  db: Queryable,
  chainId: number,
  token: string,
  offsetsHours: readonly number[],
  now: Date,
): Promise<{ offset_hours: number; price_usd: number }[]> {
  const prices = await pricesAt(
    db,
    offsetsHours.map((h) => ({ chainId, token, time: new Date(now.getTime() - h * 3_600_000) })),
  );
  const out: { offset_hours: number; price_usd: number }[] = [];
  offsetsHours.forEach((h, i) => {
    const p = prices[i];
    if (p !== null && p !== undefined) out.push({ offset_hours: h, price_usd: p });
  });
  return out;
}
