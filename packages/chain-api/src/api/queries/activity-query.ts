import type { ActivityRow } from '../../shape/activity-row.js';
import { preparedQuery, type ReadDb } from './prepared-query.js';

export type { ActivityRow, TokenRef } from '../../shape/activity-row.js';

/** Keyset position in a feed: the index's sort key of the last row returned. */
export type ActivityKey = [
  blockTime: number,
  chainId: number,
  blockNumber: string,
  txIndex: number,
  logIndex: number,
  subIndex: number,
];

export interface ActivityQuery {
  wallet: string;
  chainIds: number[];
  types?: string[] | undefined;
  assetTypes?: string[] | undefined;
  tokens?: string[] | undefined;
  after?: ActivityKey | undefined;
  limit: number;
}

/** A token's metadata as JSON, or null: `address` names the token of the row `a`. */
const tokenJson = (address: string) =>
  `(select json_build_object('symbol', t.symbol, 'name', t.name, 'decimals', t.decimals, 'standard', t.standard)
      from tokens t where t.chain_id = a.chain_id and t.address = ${address})`;

/**
 * One page of a wallet's feed, newest first: a single backwards range scan of
 * `activity_wallet_feed_idx` starting after `after` (per token of `tokens`, of
 * `activity_wallet_token_idx`), with token metadata and price looked up per row.
 */
export async function selectActivity(db: ReadDb, q: ActivityQuery): Promise<ActivityRow[]> {
  const params: unknown[] = [q.wallet, q.chainIds];
  const where = ['a.wallet = $1', 'a.chain_id = any($2::int[])'];
  if (q.types) {
    params.push(q.types);
    where.push(`a.type = any($${params.length}::text[])`);
  }
  if (q.assetTypes) {
    params.push(q.assetTypes);
    where.push(`a.asset_type = any($${params.length}::text[])`);
  }
  let tokensParam = 0;
  if (q.tokens) {
    params.push(q.tokens);
    tokensParam = params.length;
    where.push('a.token_address = tok.address');
  }
  if (q.after) {
    const [time, chainId, blockNumber, txIndex, logIndex, subIndex] = q.after;
    params.push(time, chainId, blockNumber, txIndex, logIndex, subIndex);
    const n = params.length;
    where.push(
      `(a.block_time, a.chain_id, a.block_number, a.tx_index, a.log_index, a.sub_index) < (to_timestamp($${n - 5}::float8), $${n - 4}::int, $${n - 3}::bigint, $${n - 2}::int, $${n - 1}::int, $${n}::int)`,
    );
  }
  params.push(q.limit);
  const order =
    'order by a.block_time desc, a.chain_id desc, a.block_number desc, a.tx_index desc, a.log_index desc, a.sub_index desc';
  // With tokens: the newest rows of each token (a range scan of activity_wallet_token_idx
  // each), merged; never the wallet's whole feed filtered down to a rare token.
  const source = q.tokens
    ? `(select x.* from (select distinct unnest($${tokensParam}::text[]) as address) tok
          cross join lateral (select a.* from activity a where ${where.join(' and ')}
                              ${order} limit $${params.length}) x) a`
    : 'activity a';
  const filter = q.tokens ? 'true' : where.join(' and ');
  // The page first, then one primary-key lookup per row for its metadata and price (subqueries,
  // not joins): PostgreSQL then settles on one generic plan per connection after a few runs,
  // where the joined form was planned again at every request, which cost more than running it.
  const sql = `
    select a.chain_id, a.block_number::text as block_number,
           extract(epoch from a.block_time)::float8 as block_time,
           a.tx_index, a.log_index, a.sub_index, a.tx_hash, a.type, a.asset_type, a.token_address,
           a.from_address, a.to_address, a.value::text as value, a.token_id::text as token_id, a.extra,
           ${tokenJson('a.token_address')} as token,
           case when a.type = 'swap' then ${tokenJson("a.extra->>'from_token_address'")} end as from_token,
           case when a.type = 'swap' then ${tokenJson("a.extra->>'to_token_address'")} end as to_token,
           p.price_usd as current_price, p.pool_size
      from (select a.* from ${source} where ${filter} ${order} limit $${params.length}) a
      left join lateral (
        select p.price_usd, p.pool_size from token_prices p
         where a.asset_type in ('native', 'erc20') and a.type <> 'swap'
           and p.chain_id = a.chain_id and p.token = coalesce(a.token_address, 'native')
      ) p on true
     ${order}`;
  const { rows } = await preparedQuery<ActivityRow>(db, sql, params);
  return rows;
}
