import { preparedQuery, type ReadDb } from './prepared-query.js';

/** Keyset position among a token's holders: the last row's (balance, wallet). */
export type HolderKey = [balance: string, wallet: string];

export interface HoldersQuery {
  chainId: number;
  token: string;
  after?: HolderKey | undefined;
  limit: number;
}

export interface HolderRow {
  wallet: string;
  balance: string;
  /** Unix seconds of the holder's first receipt, null when the store has none. */
  first_acquired: number | null;
  has_initiated_transfer: boolean;
}

/** The standard the store recorded for a token, or undefined when it never saw the token. */
export async function tokenStandard(
  db: ReadDb,
  chainId: number,
  token: string,
): Promise<string | undefined> {
  const { rows } = await preparedQuery<{ standard: string }>(
    db,
    'select standard from tokens where chain_id = $1 and address = $2',
    [chainId, token],
  );
  return rows[0]?.standard;
}

// Per NFT holder: first receipt and whether it ever sent from the collection, from the holder's
// activity in the collection (activity_wallet_token_idx; ERC20 keeps these facts in erc20_balances). NFTs fall back to the current holding's acquisition time when the feed has no receipt.
const holderFacts = (fallback: string) => `
  coalesce((select extract(epoch from min(a.block_time))::float8 from activity a
    where a.wallet = h.wallet and a.chain_id = $1 and a.token_address = $2
      and a.type in ('receive', 'mint', 'transfer')), ${fallback}) as first_time,
  exists (select 1 from activity a
    where a.wallet = h.wallet and a.chain_id = $1 and a.token_address = $2
      and a.type in ('send', 'transfer', 'burn')) as has_initiated_transfer`;

/**
 * One page of an ERC20's holders, largest balance first (ties by wallet): a single range scan of
 * erc20_balances_holders_idx after the cursor, so a deep page costs what the first does.
 */
export async function selectErc20Holders(db: ReadDb, q: HoldersQuery): Promise<HolderRow[]> {
  const params: unknown[] = [q.chainId, q.token, q.limit];
  let keyset = '';
  if (q.after) {
    params.push(q.after[0], q.after[1]);
    keyset = 'and b.amount <= $4::numeric and (b.amount < $4::numeric or b.wallet > $5)';
  }
  const sql = `
    select h.wallet, h.balance, extract(epoch from h.first_acquired)::float8 as first_time,
           h.has_sent as has_initiated_transfer
      from (select b.wallet, b.amount::text as balance, b.amount, b.first_acquired, b.has_sent
              from erc20_balances b
             where b.chain_id = $1 and b.token = $2 and b.amount > 0 ${keyset}
             order by b.amount desc, b.wallet limit $3) h
     order by h.amount desc, h.wallet`;
  const { rows } = await preparedQuery<HolderRow & { first_time: number | null }>(db, sql, params);
  return rows.map(({ first_time, ...row }) => ({ ...row, first_acquired: first_time }));
}

/**
 * One page of an NFT collection's holders by number of items held (ERC721 tokens, or the sum of
 * ERC1155 balances), largest first: a range scan of `nft_holder_totals` (kept by triggers on
 * nft_holdings, src/store/token-totals.ts) after the cursor; only the page's holders are looked
 * up in `nft_holdings` for their acquisition time.
 */
export async function selectNftHolders(db: ReadDb, q: HoldersQuery): Promise<HolderRow[]> {
  const params: unknown[] = [q.chainId, q.token, q.limit];
  let keyset = '';
  if (q.after) {
    params.push(q.after[0], q.after[1]);
    keyset = 'and t.amount <= $4::numeric and (t.amount < $4::numeric or t.wallet > $5)';
  }
  const sql = `
    select h.wallet, h.balance, ${holderFacts('h.held_since')}
      from (select t.wallet, t.amount, t.amount::text as balance,
                   (select extract(epoch from min(n.last_acquired))::float8 from nft_holdings n
                     where n.chain_id = $1 and n.contract = $2 and n.wallet = t.wallet
                       and n.balance > 0) as held_since
              from nft_holder_totals t
             where t.chain_id = $1 and t.contract = $2 and t.amount > 0 ${keyset}
             order by t.amount desc, t.wallet limit $3) h
     order by h.amount desc, h.wallet`;
  const { rows } = await preparedQuery<HolderRow & { first_time: number | null }>(db, sql, params);
  return rows.map(({ first_time, ...row }) => ({ ...row, first_acquired: first_time }));
}
