import type { BalanceRow } from './balances-query.js';
import { preparedQuery, type ReadDb } from './prepared-query.js';

export interface TokenInfoRow extends BalanceRow {
  standard: string | null;
  /** Sum of every holder's balance (ERC20), when asked for. */
  total_supply: string | null;
}

/**
 * A token's stored metadata and current price, shaped as a zero balance row (so the balances'
 * shaping applies), or undefined when the store never saw the token. `withSupply` adds the sum
 * of all holders' balances, read from `token_supply` (no scan of the holders).
 *
 * @example
 * await selectTokenInfo(db, 1, '0xa0b8…', true) // { symbol: 'USDC', total_supply: '…', … }
 */
export async function selectTokenInfo(
  db: ReadDb,
  chainId: number,
  token: string,
  withSupply: boolean,
): Promise<TokenInfoRow | undefined> {
  const native = token === 'native';
  // Kept by triggers on erc20_balances (src/store/token-totals.ts): one primary-key lookup.
  const supply = withSupply
    ? `coalesce((select s.supply::text from token_supply s
                  where s.chain_id = k.chain_id and s.token = k.address), '0')`
    : 'null::text';
  const { rows } = await preparedQuery<TokenInfoRow & { known: boolean }>(
    db,
    `select k.chain_id, k.address, t.standard, t.name, t.symbol, t.decimals,
            p.price_usd, p.pool_size, p.low_liquidity, p.pool_type, p.pool_address, p.pool_tokens,
            t.address is not null as known, ${supply} as total_supply
       from (select $1::int as chain_id, $2::text as address) k
       left join tokens t on t.chain_id = k.chain_id and t.address = k.address
       left join token_prices p on p.chain_id = k.chain_id and p.token = k.address`,
    [chainId, token],
  );
  const row = rows[0];
  if (!row || (!row.known && !native)) return undefined;
  const { known: _known, ...rest } = row;
  return { ...rest, kind: native ? 0 : 1, amount: '0' };
}
