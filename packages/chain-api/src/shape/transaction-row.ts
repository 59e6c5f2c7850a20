/** A stored transaction as the transactions endpoint reads it. */
export interface TransactionRow {
  chain_id: number;
  block_number: string;
  block_time: number;
  block_hash: string;
  tx_index: number;
  hash: string;
  from_address: string;
  to_address: string | null;
  contract_address: string | null;
  value: string;
  data: string;
  status: number;
  gas_used: string;
  effective_gas_price: string | null;
}

export interface LogRow {
  chain_id: number;
  block_number: string;
  tx_index: number;
  log_index: number;
  address: string;
  topic0: string | null;
  topic1: string | null;
  topic2: string | null;
  topic3: string | null;
  data: string;
}
