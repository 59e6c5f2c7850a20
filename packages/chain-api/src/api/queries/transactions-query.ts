import type { LogRow, TransactionRow } from '../../shape/transaction-row.js';
import { preparedQuery, type ReadDb } from './prepared-query.js';

export type { LogRow, TransactionRow } from '../../shape/transaction-row.js';

/** Keyset position in a wallet's transactions: the last row's sort key. */
export type TransactionKey = [
  blockTime: number,
  chainId: number,
  blockNumber: string,
  txIndex: number,
];

export interface TransactionsQuery {
  wallet: string;
  chainIds: number[];
  after?: TransactionKey | undefined;
  limit: number;
}

/** One side (sender or recipient) of a chain's newest transactions after the cursor. */
function side(column: 'from_address' | 'to_address', withCursor: boolean): string {
  const bound = withCursor
    ? 'and t.block_number <= bound.block and (t.block_number < bound.block or t.tx_index < bound.idx)'
    : '';
  return `(select t.chain_id, t.block_number, t.tx_index from transactions t
             where t.${column} = $1 and t.chain_id = c.chain_id ${bound}
             order by t.block_number desc, t.tx_index desc limit $3)`;
}

/**
 * One page of a wallet's transactions (sent or received), newest first across chains: per chain,
 * two backwards range scans (transactions_from_idx / transactions_to_idx) merged, so a deep page
 * costs what the first does. The cursor's time becomes a block bound per chain (block time never
 * decreases along a chain; ties on time are ordered by chain id, descending).
 */
export async function selectTransactions(
  db: ReadDb,
  q: TransactionsQuery,
): Promise<TransactionRow[]> {
  const params: unknown[] = [q.wallet, q.chainIds, q.limit];
  let boundSql = '';
  if (q.after) {
    const [time, chainId, blockNumber, txIndex] = q.after;
    params.push(time, chainId, blockNumber, txIndex);
    // On the cursor's chain: strictly before (block, index). On a chain ordered after it at the
    // same time (lower id): blocks at or before the time; on a higher id: strictly before it.
    const lastBlock = (op: string) => `(select b.number from blocks b
        where b.chain_id = c.chain_id and b.timestamp ${op} to_timestamp($4::float8)
        order by b.timestamp desc, b.number desc limit 1)`;
    boundSql = `cross join lateral (
        select case when c.chain_id = $5::int then $6::bigint
                    when c.chain_id < $5::int then coalesce(${lastBlock('<=')}, -1) + 1
                    else coalesce(${lastBlock('<')}, -1) + 1
               end as block,
               case when c.chain_id = $5::int then $7::int else 0 end as idx
      ) bound`;
  }
  const withCursor = q.after !== undefined;
  const sql = `
    select t.chain_id, t.block_number::text as block_number,
           extract(epoch from b.timestamp)::float8 as block_time, b.hash as block_hash,
           t.tx_index, t.hash, t.from_address, t.to_address, t.contract_address,
           t.value::text as value, '0x' || encode(t.input, 'hex') as data, t.status,
           t.gas_used::text as gas_used, t.effective_gas_price::text as effective_gas_price
      from unnest($2::int[]) as c(chain_id)
      ${boundSql}
      cross join lateral (
        select u.* from (${side('from_address', withCursor)} union ${side('to_address', withCursor)}) u
         order by u.block_number desc, u.tx_index desc limit $3
      ) k
      join transactions t on t.chain_id = k.chain_id and t.block_number = k.block_number and t.tx_index = k.tx_index
      -- limit 1 keeps this a primary-key lookup per row (never a scan of blocks).
      cross join lateral (select b.timestamp, b.hash from blocks b
                           where b.chain_id = t.chain_id and b.number = t.block_number limit 1) b
     order by b.timestamp desc, t.chain_id desc, t.block_number desc, t.tx_index desc
     limit $3`;
  const { rows } = await preparedQuery<TransactionRow>(db, sql, params);
  return rows;
}

/**
 * The stored logs of a page's transactions, in log order: the first `perTransaction` of each
 * (a transaction can emit tens of thousands).
 */
export async function selectTransactionLogs(
  db: ReadDb,
  txs: readonly Pick<TransactionRow, 'chain_id' | 'block_number' | 'tx_index'>[],
  perTransaction: number,
): Promise<LogRow[]> {
  if (txs.length === 0) return [];
  const sql = `
    select l.chain_id, l.block_number::text as block_number, l.tx_index, l.log_index, l.address,
           l.topic0, l.topic1, l.topic2, l.topic3, '0x' || encode(l.data, 'hex') as data
      from unnest($1::int[], $2::bigint[], $3::int[]) as k(chain_id, block_number, tx_index)
      cross join lateral (
        select * from logs l
         where l.chain_id = k.chain_id and l.block_number = k.block_number and l.tx_index = k.tx_index
         order by l.log_index
         limit $4
      ) l
     order by l.chain_id, l.block_number, l.log_index`;
  const { rows } = await preparedQuery<LogRow>(db, sql, [
    txs.map((t) => t.chain_id),
    txs.map((t) => t.block_number),
    txs.map((t) => t.tx_index),
    perTransaction,
  ]);
  return rows;
}
