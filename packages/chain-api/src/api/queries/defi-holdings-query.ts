import { DEFI_PROBE } from '../../defi/defi-probes.js';
import type { HeldContract } from '../../defi/wallet-positions.js';
import { preparedQuery, type ReadDb } from './prepared-query.js';

interface HeldRow {
  chain_id: number;
  address: string;
  standard: 'erc20' | 'erc721';
  token_ids: string[] | null;
  probed: boolean;
  result: string | null;
}

/**
 * The contracts a wallet holds on the given chains, per chain: ERC20s with a positive stored
 * balance and ERC721 collections with the ids held, each with its cached DeFi probe answer.
 * Primary-key range scans of erc20_balances and nft_holdings on the wallet.
 *
 * @example
 * const held = await selectHeldContracts(db, wallet, [1, 8453]); // Map { 1 => [...], ... }
 */
export async function selectHeldContracts(
  db: ReadDb,
  wallet: string,
  chainIds: readonly number[],
): Promise<Map<number, HeldContract[]>> {
  const out = new Map<number, HeldContract[]>();
  if (chainIds.length === 0) return out;
  const { rows } = await preparedQuery<HeldRow>(
    db,
    `select x.chain_id, x.token as address, 'erc20' as standard, null::text[] as token_ids,
            cp.address is not null as probed, cp.result
       from erc20_balances x
       left join contract_probes cp
         on cp.chain_id = x.chain_id and cp.address = x.token and cp.probe = $3
      where x.wallet = $1 and x.chain_id = any($2::int[]) and x.amount > 0
     union all
     select h.chain_id, h.contract, 'erc721', array_agg(h.token_id::text order by h.token_id),
            bool_or(cp.address is not null), max(cp.result)
       from nft_holdings h
       left join contract_probes cp
         on cp.chain_id = h.chain_id and cp.address = h.contract and cp.probe = $3
      where h.wallet = $1 and h.chain_id = any($2::int[]) and h.standard = 'erc721'
      group by h.chain_id, h.contract`,
    [wallet, chainIds, DEFI_PROBE],
  );
  for (const row of rows) {
    const list = out.get(row.chain_id) ?? [];
    list.push({
      address: row.address,
      standard: row.standard,
      tokenIds: (row.token_ids ?? []).map((id) => BigInt(id)),
      probed: row.probed,
      result: row.result,
    });
    out.set(row.chain_id, list);
  }
  return out;
}

/** Stored metadata and current USD price of a token (nulls where unknown). */
export interface TokenFacts {
  chain_id: number;
  address: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  price_usd: number | null;
  /** Whether the `tokens` table knows the contract. */
  known: boolean;
}

/**
 * Metadata and prices of the given (chain, token) pairs, one lookup per pair on the primary keys
 * of `tokens` and `token_prices`.
 *
 * @example
 * await selectTokenFacts(db, [[1, '0xa0b8…']]) // [{ symbol: 'USDC', decimals: 6, price_usd: 1, … }]
 */
export async function selectTokenFacts(
  db: ReadDb,
  tokens: readonly (readonly [chainId: number, address: string])[],
): Promise<TokenFacts[]> {
  if (tokens.length === 0) return [];
  const { rows } = await preparedQuery<TokenFacts>(
    db,
    `select k.chain_id, k.address, t.name, t.symbol, t.decimals, p.price_usd,
            t.address is not null as known
       from unnest($1::int[], $2::text[]) as k(chain_id, address)
       left join tokens t on t.chain_id = k.chain_id and t.address = k.address
       left join token_prices p on p.chain_id = k.chain_id and p.token = k.address`,
    [tokens.map(([id]) => id), tokens.map(([, address]) => address)],
  );
  return rows;
}
