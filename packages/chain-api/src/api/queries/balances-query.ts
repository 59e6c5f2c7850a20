import { preparedQuery, type ReadDb } from './prepared-query.js';

/** Keyset position in a balances listing: (chain id, 0 native / 1 erc20, token address). */
export type BalanceKey = [chainId: number, kind: number, address: string];

export interface BalancesQuery {
  wallet: string;
  chainIds: number[];
  /** Only native (`native`) or only ERC20 (`erc20`). */
  only?: 'native' | 'erc20' | undefined;
  /** Only these (chain id, token) pairs: asset_class=stablecoin. */
  tokens?: { chainIds: number[]; addresses: string[] } | undefined;
  /** Drop ERC20s whose pricing pool is under this many USD or missing (exclude_spam_tokens). */
  minPoolUsd?: number | undefined;
  excludeUnpriced?: boolean | undefined;
  /** Include zero balances (the single-token endpoint answers "0"). */
  includeZero?: boolean | undefined;
  /** Select the pricing pool's columns (metadata=pools); skipped otherwise, they cost decoding. */
  withPools?: boolean | undefined;
  after?: BalanceKey | undefined;
  limit: number;
}

export interface BalanceRow {
  chain_id: number;
  kind: number;
  address: string;
  amount: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  price_usd: number | null;
  pool_size: number | null;
  low_liquidity: boolean | null;
  pool_type: string | null;
  pool_address: string | null;
  pool_tokens: string[] | null;
}

/**
 * One page of a wallet's balances: native rows then ERC20 rows per chain, ordered by
 * (chain, kind, address) so the cursor is a keyset over the primary keys, with token metadata
 * and the current price joined. The ERC20 branch walks the (wallet, chain_id, token) primary
 * key in order and stops after `limit` rows, so a first page costs what a deep page costs.
 * Price-dependent filters run in SQL so pages stay exact.
 */
export async function selectBalances(db: ReadDb, q: BalancesQuery): Promise<BalanceRow[]> {
  if (q.chainIds.length === 0) return [];
  const params: unknown[] = [q.wallet, q.chainIds, q.limit];
  const add = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const pools = q.withPools
    ? 'p.pool_type, p.pool_address, p.pool_tokens'
    : 'null::text as pool_type, null::text as pool_address, null::text[] as pool_tokens';
  const priceFilters: string[] = [];
  if (q.excludeUnpriced) priceFilters.push('p.price_usd is not null');
  const positive = q.includeZero ? '' : 'and x.amount > 0';
  const [afterChain, afterKind, afterAddress] = q.after ?? [];
  const parts: string[] = [];

  if (q.only !== 'erc20' && !q.tokens) {
    const cursor = q.after ? `and x.chain_id > ${add(afterChain)}::int` : '';
    parts.push(`(select x.chain_id, 0 as kind, 'native'::text as address, x.amount::text as amount,
        null::text as name, null::text as symbol, null::smallint as decimals,
        p.price_usd, p.pool_size, p.low_liquidity, ${pools}
      from native_balances x
      left join token_prices p on p.chain_id = x.chain_id and p.token = 'native'
      where x.wallet = $1 and x.chain_id = any($2::int[]) ${positive} ${cursor}
        ${priceFilters.map((f) => `and ${f}`).join(' ')})`);
  }
  if (q.only !== 'native') {
    const filters = [...priceFilters];
    if (q.minPoolUsd !== undefined) filters.push(`p.pool_size >= ${add(q.minPoolUsd)}`);
    if (q.tokens) {
      const ids = add(q.tokens.chainIds);
      const addresses = add(q.tokens.addresses);
      // token = any(...) is an index condition on the primary key: a direct lookup per token.
      filters.push(
        `x.token = any(${addresses}::text[])`,
        `(x.chain_id, x.token) in (select * from unnest(${ids}::int[], ${addresses}::text[]))`,
      );
    }
    if (q.after) {
      // After a native row of chain c: every token of c onwards; after a token: the next key.
      filters.push(
        afterKind === 0
          ? `x.chain_id >= ${add(afterChain)}::int`
          : `(x.chain_id, x.token) > (${add(afterChain)}::int, ${add(afterAddress)}::text)`,
      );
    }
    // A range on chain_id (not only = any) keeps the primary key's order usable for the limit.
    const min = add(Math.min(...q.chainIds));
    const max = add(Math.max(...q.chainIds));
    parts.push(`(select x.chain_id, 1 as kind, x.token as address, x.amount::text as amount,
        t.name, t.symbol, t.decimals, p.price_usd, p.pool_size, p.low_liquidity, ${pools}
      from erc20_balances x
      left join tokens t on t.chain_id = x.chain_id and t.address = x.token
      left join token_prices p on p.chain_id = x.chain_id and p.token = x.token
      where x.wallet = $1 and x.chain_id between ${min}::int and ${max}::int
        and x.chain_id = any($2::int[]) ${positive}
        ${filters.map((f) => `and ${f}`).join(' ')}
      order by x.chain_id, x.token
      limit $3)`);
  }
  if (parts.length === 0) return [];
  const sql = `select * from (${parts.join(' union all ')}) b
    order by b.chain_id, b.kind, b.address limit $3`;
  const { rows } = await preparedQuery<BalanceRow>(db, sql, params);
  return rows;
}
