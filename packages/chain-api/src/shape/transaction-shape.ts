import type { ChainConfig } from '../chains/chain-config.js';
import { utcIso } from './format.js';
import type { LogRow, TransactionRow } from './transaction-row.js';
import { decodeTransactionInput, decodeTransactionLog } from './tx-decode.js';

const hex = (decimal: string): string => `0x${BigInt(decimal).toString(16)}`;

/** Maps a stored transaction (and its stored logs) to the peer's `Transaction`. */
export function shapeTransaction(
  wallet: string,
  row: TransactionRow,
  logs: readonly LogRow[],
  chain: Pick<ChainConfig, 'name'> | undefined,
  decode: boolean,
): Record<string, unknown> {
  const tx: Record<string, unknown> = {
    address: wallet,
    block_hash: row.block_hash,
    block_number: row.block_number,
    block_time: utcIso(row.block_time),
    chain: chain?.name ?? String(row.chain_id),
    chain_id: row.chain_id,
    from: row.from_address,
  };
  if (row.to_address) tx.to = row.to_address;
  if (row.contract_address) tx.contract_address = row.contract_address;
  tx.data = row.data;
  if (row.effective_gas_price !== null) tx.gas_price = hex(row.effective_gas_price);
  tx.gas_used = hex(row.gas_used);
  tx.hash = row.hash;
  tx.index = String(row.tx_index);
  tx.success = row.status === 1;
  tx.value = hex(row.value);
  if (decode) {
    const decoded = decodeTransactionInput(row.data);
    if (decoded) tx.decoded = decoded;
  }
  tx.logs = logs.map((log) => {
    const topics = [log.topic0, log.topic1, log.topic2, log.topic3].filter(
      (t): t is string => t !== null,
    );
    const out: Record<string, unknown> = {
      address: log.address,
      data: log.data,
      topics,
      log_index: log.log_index,
    };
    if (decode) {
      const decoded = decodeTransactionLog(topics, log.data);
      if (decoded) out.decoded = decoded;
    }
    return out;
  });
  return tx;
}
