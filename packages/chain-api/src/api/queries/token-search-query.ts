import { preparedQuery, type ReadDb } from './prepared-query.js';

export interface TokenSearchQuery {
  /** Trimmed search text (3+ characters). */
  text: string;
  /** The text as an address (lower-case), when it is one. */
  address?: string | undefined;
  chainIds: number[];
  limit: number;
}

export interface TokenSearchRow {
  chain_id: number;
  address: string;
  symbol: string | null;
  name: string | null;
  decimals: number | null;
  pool_size: number | null;
  holders: number;
}

/** Candidates read per prefix index before ranking; holders are counted up to this many. */
export const searchCandidates = 200;
export const holderCountCap = 1000;

/**
 * ERC20 tokens whose symbol or name starts with `text` (case-insensitive), or whose address is
 * `address`, on the given chains; ranked by pricing-pool liquidity, then holders (counted up to
 * `holderCountCap`), then (chain id, address). Prefix matches are byte ranges on the
 * text_pattern_ops indexes, so a search reads at most `searchCandidates` rows per index, plus
 * exact-symbol and priced matches so a liquid token is never cut off by unpriced look-alikes.
 *
 * @example
 * await searchTokens(db, { text: 'usd', chainIds: [1, 8453], limit: 10 })
 */
export async function searchTokens(db: ReadDb, q: TokenSearchQuery): Promise<TokenSearchRow[]> {
  const prefix = (column: string) => `
    (select t.chain_id, t.address from tokens t
      where lower(t.${column}) ~>=~ lower($1) and lower(t.${column}) ~<~ (lower($1) || chr(1114111))
        and t.${column} is not null and t.chain_id = any($2::int[]) and t.standard = 'erc20'
      order by lower(t.${column}) limit ${searchCandidates})`;
  const sql = `
    select t.chain_id, t.address, t.symbol, t.name, t.decimals, p.pool_size,
           (select count(*) from (select 1 from erc20_balances b
              where b.chain_id = t.chain_id and b.token = t.address and b.amount > 0
              limit ${holderCountCap}) h)::int as holders
      from (${prefix('symbol')} union ${prefix('name')}
            -- Exact symbols and priced matches are candidates even past the alphabetical cut
            -- (hundreds of unpriced "USDxxx" must not hide USDC); token_prices holds priced
            -- tokens only, so this reads that small table, not tokens.
            union (select t.chain_id, t.address from tokens t
                    where lower(t.symbol) = lower($1) and t.symbol is not null
                      and t.chain_id = any($2::int[]) and t.standard = 'erc20'
                    limit ${searchCandidates})
            union (select t.chain_id, t.address from token_prices p
                     join tokens t on t.chain_id = p.chain_id and t.address = p.token
                    where p.chain_id = any($2::int[]) and p.pool_size is not null
                      and t.standard = 'erc20'
                      and (starts_with(lower(coalesce(t.symbol, '')), lower($1))
                           or starts_with(lower(coalesce(t.name, '')), lower($1)))
                    order by p.pool_size desc limit ${searchCandidates})
            union (select t.chain_id, t.address from tokens t
                    where t.address = $3 and t.chain_id = any($2::int[]) and t.standard = 'erc20')) c
      join tokens t on t.chain_id = c.chain_id and t.address = c.address
      left join token_prices p on p.chain_id = t.chain_id and p.token = t.address
     -- The prefix must match as text too (the byte range is only the index's bound).
     where starts_with(lower(coalesce(t.symbol, '')), lower($1))
        or starts_with(lower(coalesce(t.name, '')), lower($1)) or t.address = $3
     order by p.pool_size desc nulls last, holders desc, t.chain_id, t.address
     limit $4`;
  const { rows } = await preparedQuery<TokenSearchRow>(db, sql, [
    q.text,
    q.chainIds,
    q.address ?? null,
    q.limit,
  ]);
  return rows;
}
