/** `GET /v1/console/status` (documented in the chain API's docs/console.md). */
export interface ConsoleStatus {
  generated_at: string;
  chains: ChainConsoleStatus[];
  /** Compute-unit use per key; null while the server does not meter it. */
  usage: UsageRow[] | null;
  /** Subscription delivery stats; null while the server has none. */
  subscriptions: SubscriptionStats | null;
}

export interface UsageRow {
  key: string;
  compute_units: number;
}

export interface SubscriptionStats {
  delivered: number;
  failed: number;
}

export interface RateSample {
  /** Unix seconds. */
  t: number;
  blocks_per_second: number;
  events_per_second: number;
}

export interface WorkerStatus {
  name: string;
  queue: number;
  detail: string;
}

export interface ChainConsoleStatus {
  chain_id: number;
  name: string;
  head_block: number | null;
  indexed_block: number | null;
  lag_seconds: number | null;
  ready: boolean;
  error?: string;
  eta_seconds: number | null;
  capabilities: {
    traces: 'supported' | 'unsupported' | 'unknown';
    archive: 'supported' | 'unsupported' | 'unknown';
    multicall3: string | null;
    block_receipts: boolean | null;
  };
  rates: RateSample[];
  reorgs: { count: number; deepest: number } | null;
  reconcile?: {
    enabled?: boolean;
    non_conserving_tokens?: number;
    reads_per_batch?: number;
    total_reads?: number;
  };
  workers: WorkerStatus[];
}

export interface SupportedChain {
  chain_id: number;
  name: string;
}

export interface Balance {
  chain: string;
  chain_id: number;
  address: string;
  amount: string;
  symbol?: string;
  name?: string;
  decimals?: number;
  price_usd?: number;
  value_usd?: number;
  pool_size?: number;
  low_liquidity?: boolean;
  token_metadata?: { logo?: string; url?: string };
}

export interface ActivityItem {
  chain_id: number;
  block_number: number;
  block_time: string;
  tx_hash: string;
  type: string;
  asset_type?: string;
  token_address?: string;
  from?: string;
  to?: string;
  value?: string;
  value_usd?: number;
  token_metadata?: { symbol?: string; decimals?: number; name?: string; logo?: string };
  id?: string;
}

export interface Collectible {
  contract_address: string;
  token_standard: string;
  token_id: string;
  chain: string;
  chain_id: number;
  name?: string;
  symbol?: string;
  image_url?: string;
  balance: string;
  is_spam: boolean;
}

export interface PortfolioPoint {
  date: string;
  time: string;
  value_usd: number;
  complete: boolean;
}

export interface DefiPosition {
  type: string;
  chain_id: number;
  protocol?: string;
  value_usd?: number;
  pool?: string;
  token0?: { symbol?: string };
  token1?: { symbol?: string };
  token?: { symbol?: string };
  positions?: unknown[];
}
