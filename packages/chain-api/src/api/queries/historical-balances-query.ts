import type { BalanceKey, BalanceRow } from './balances-query.js';
import { preparedQuery, type ReadDb } from './prepared-query.js';

/**
 * Signed ERC20 movement of an activity row in its wallet's point of view: receive/mint add,
 * send/burn subtract; a self-transfer, approvals and swap summaries move nothing (a swap's
 * underlying Transfer rows carry its movements, so they count once).
 */
export const signedErc20Delta = /* sql */ `case when a.type in ('receive', 'mint') then a.value
  when a.type in ('send', 'burn') then -a.value else 0 end`;

export interface HistoricalBalancesQuery {
  wallet: string;
  chainId: number;
  block: bigint;
  /** Timestamp of `block`: the activity feed index is ordered by time, then block. */
  blockTime: Date;
  only?: 'native' | 'erc20' | undefined;
  /** Only these tokens of the chain (asset_class=stablecoin). */
  tokens?: readonly string[] | undefined;
  /** Drop ERC20s whose current pricing pool is under this many USD or missing. */
  minPoolUsd?: number | undefined;
  withPools?: boolean | undefined;
  /**
   * Only ERC20s that can have a price at the block: a configured stablecoin, or a token with a
   * price point at or before it (exclude_unpriced: a wallet's thousands of never-priced spam
   * tokens are skipped by index probes instead of being resolved and priced one by one).
   */
  pricedOnly?: boolean | undefined;
  after?: BalanceKey | undefined;
  limit: number;
}

/**
 * A balance row at a past block. `amount` is exact when `source` is `store`; `node` rows must be
 * read from the chain at that block (their amount column holds the current stored value).
 */
export interface HistoricalCandidate extends BalanceRow {
  source: 'store' | 'node';
}

/**
 * One chunk of a wallet's balances on one chain at a past block, in the order and keyset of the
 * current balances listing (native first, then token address). Per pair:
 * - conserving ERC20 (balances move only by decoded events, reconciled with balanceOf): the
 *   current amount minus the wallet's signed movements after the block, from one range scan of
 *   `activity_wallet_feed_idx` (wallet, block_time >= the block's time) aggregated per token;
 *   zero at that block means left out;
 * - tokens marked non_conserving, with an unreadable balanceOf, or whose derivation would be
 *   negative: `node` (read balanceOf at that block);
 * - native: the stored amount when its last refresh (updated_block) is at or before the block
 *   (nothing touched the wallet since), else `node` (eth_getBalance at that block: gas fees,
 *   fee-recipient income and withdrawals have no event).
 * Token metadata and the current pricing pool are joined (prices at the block's time are added by
 * the caller).
 *
 * @example
 * const rows = await selectHistoricalCandidates(db, { wallet, chainId: 1, block: 19_000_000n, blockTime, limit: 101 });
 */
export async function selectHistoricalCandidates(
  db: ReadDb,
  q: HistoricalBalancesQuery,
): Promise<HistoricalCandidate[]> {
  const params: unknown[] = [q.wallet, q.chainId, q.block.toString(), q.limit];
  const add = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const pools = q.withPools
    ? 'p.pool_type, p.pool_address, p.pool_tokens'
    : 'null::text as pool_type, null::text as pool_address, null::text[] as pool_tokens';
  const [, afterKind, afterAddress] = q.after ?? [];
  const parts: string[] = [];
  // The native row is the first key of the chain (its scope binds the cursor to one chain).
  if (q.only !== 'erc20' && !q.tokens && q.after === undefined) {
    parts.push(`(select x.chain_id, 0 as kind, 'native'::text as address, x.amount::text as amount,
        case when x.updated_block <= $3::bigint then 'store' else 'node' end as source,
        null::text as name, null::text as symbol, null::smallint as decimals,
        p.price_usd, p.pool_size, p.low_liquidity, ${pools}
      from native_balances x
      left join token_prices p on p.chain_id = x.chain_id and p.token = 'native'
      where x.wallet = $1 and x.chain_id = $2::int
        and (x.updated_block > $3::bigint or x.amount > 0))`);
  }
  if (q.only !== 'native') {
    const filters: string[] = [];
    if (q.minPoolUsd !== undefined) filters.push(`p.pool_size >= ${add(q.minPoolUsd)}`);
    if (q.tokens) filters.push(`x.token = any(${add(q.tokens)}::text[])`);
    if (q.after && afterKind === 1) filters.push(`x.token > ${add(afterAddress)}::text`);
    const time = add(q.blockTime.toISOString());
    if (q.pricedOnly) {
      filters.push(`(x.token = any(coalesce((select c.stablecoins from pricing_cursors c
          where c.chain_id = x.chain_id), '{}'::text[]))
        or exists (select 1 from price_history h
          where h.chain_id = x.chain_id and h.token = x.token and h.time <= ${time}::timestamptz))`);
    }
    parts.push(`(select x.chain_id, 1 as kind, x.token as address,
        case when s.node then x.amount::text else s.past::text end as amount,
        case when s.node then 'node' else 'store' end as source,
        t.name, t.symbol, t.decimals, p.price_usd, p.pool_size, p.low_liquidity, ${pools}
      from erc20_balances x
      left join (
        select a.token_address, sum(${signedErc20Delta}) as delta
          from activity a
         where a.wallet = $1 and a.block_time >= ${time}::timestamptz
           and a.chain_id = $2::int and a.block_number > $3::bigint
           and a.asset_type = 'erc20' and a.token_address is not null
         group by a.token_address
      ) m on m.token_address = x.token
      left join tokens t on t.chain_id = x.chain_id and t.address = x.token
      left join token_prices p on p.chain_id = x.chain_id and p.token = x.token
      cross join lateral (
        select x.amount - coalesce(m.delta, 0) as past,
               (coalesce(t.balance_model, 'conserving') <> 'conserving'
                 or t.balance_read_error is not null
                 or x.amount - coalesce(m.delta, 0) < 0) as node
      ) s
      where x.wallet = $1 and x.chain_id = $2::int and (s.node or s.past > 0)
        ${filters.map((f) => `and ${f}`).join(' ')}
      order by x.token
      limit $4)`);
  }
  if (parts.length === 0) return [];
  const sql = `select * from (${parts.join(' union all ')}) b order by b.kind, b.address limit $4`;
  const { rows } = await preparedQuery<HistoricalCandidate>(db, sql, params);
  return rows;
}
