/** A token's metadata as an activity row carries it. */
export interface TokenRef {
  symbol: string | null;
  name: string | null;
  decimals: number | null;
  standard: string | null;
}

export interface ActivityRow {
  chain_id: number;
  block_number: string;
  block_time: number;
  tx_index: number;
  log_index: number;
  sub_index: number;
  tx_hash: string;
  type: string;
  asset_type: string | null;
  token_address: string | null;
  from_address: string | null;
  to_address: string | null;
  value: string | null;
  token_id: string | null;
  extra: Record<string, unknown> | null;
  token: TokenRef | null;
  from_token: TokenRef | null;
  to_token: TokenRef | null;
  /** Current price of the moved asset (native/ERC20 only) and its pool size. */
  current_price: number | null;
  pool_size: number | null;
}
