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
 * and the current price joined. Price-dependent filters run in SQL so pages stay exact.
 */
export async function selectBalances(db: ReadDb, q: BalancesQuery): Promise<BalanceRow[]> {
  const params: unknown[] = [q.wallet, q.chainIds];
  const positive = q.includeZero ? '' : 'and x.amount > 0';
  const parts: string[] = [];
  if (q.only !== 'erc20' && !q.tokens) {
    parts.push(
      `select x.chain_id, 0 as kind, 'native'::text as address, x.amount from native_balances x
        where x.wallet = $1 and x.chain_id = any($2::int[]) ${positive}`,
    );
  }
  if (q.only !== 'native') {
    let tokenFilter = '';
    if (q.tokens) {
      params.push(q.tokens.chainIds, q.tokens.addresses);
      tokenFilter = `and (x.chain_id, x.token) in (select * from unnest($${params.length - 1}::int[], $${params.length}::text[]))`;
    }
    parts.push(
      `select x.chain_id, 1 as kind, x.token as address, x.amount from erc20_balances x
        where x.wallet = $1 and x.chain_id = any($2::int[]) ${positive} ${tokenFilter}`,
    );
  }
  if (parts.length === 0) return [];

  const where: string[] = [];
  if (q.minPoolUsd !== undefined) {
    params.push(q.minPoolUsd);
    where.push(`(b.kind = 0 or p.pool_size >= $${params.length})`);
  }
  if (q.excludeUnpriced) where.push('p.price_usd is not null');
  if (q.after) {
    params.push(...q.after);
    const n = params.length;
    where.push(`(b.chain_id, b.kind, b.address) > ($${n - 2}::int, $${n - 1}::int, $${n}::text)`);
  }
  params.push(q.limit);
  const sql = `
    select b.chain_id, b.kind, b.address, b.amount::text as amount,
           t.name, t.symbol, t.decimals, p.price_usd, p.pool_size, p.low_liquidity,
           ${q.withPools ? 'p.pool_type, p.pool_address, p.pool_tokens' : 'null as pool_type, null as pool_address, null as pool_tokens'}
      from (${parts.join(' union all ')}) b
      left join tokens t on b.kind = 1 and t.chain_id = b.chain_id and t.address = b.address
      left join token_prices p on p.chain_id = b.chain_id and p.token = b.address
     ${where.length > 0 ? `where ${where.join(' and ')}` : ''}
     order by b.chain_id, b.kind, b.address
     limit $${params.length}`;
  const { rows } = await preparedQuery<BalanceRow>(db, sql, params);
  return rows;
}
