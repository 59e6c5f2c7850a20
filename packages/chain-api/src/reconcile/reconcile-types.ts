import type { ReconcileWrites } from './balance-store.js';
import type { ReadCost } from './read-balances.js';

export interface ReconcileOptions {
  /** Read balances from the node (default true). Off: Transfer deltas only (never negative). */
  enabled: boolean;
  /** Re-read every holder of a non-conserving token every this many blocks (default 1). */
  everyBlocks: number;
  /** Holder re-reads per batch at most (default 20,000); more holders are read in turns. */
  maxHolderReads: number;
  /**
   * Mid-history start: at each catch-up, (known wallet x known ERC20) pairs without a row are
   * read when there are at most this many (default 50,000), so balances held from before the
   * start block show up.
   */
  maxDiscoveryPairs: number;
  /**
   * Deep backfill: `end` (default) skips per-batch reads and reads every changed pair once when
   * the backfill reaches the head (cheaper, and works on non-archive nodes); `batch` reads
   * every batch's pairs at its last block.
   */
  backfill: 'end' | 'batch';
}

/** Balances read for one batch in `prepare` (ahead of the writer). */
export interface BatchReads {
  /** Every touched pair was read at the batch's last block. */
  all: boolean;
  erc20: Map<string, bigint | null>;
  nft1155: Map<string, bigint | null>;
  /** Holders of non-conserving tokens the batch did not touch, re-read. */
  holders: { wallet: string; token: string; value: bigint | null }[];
  /** ERC20 contracts whose Deposit/Withdrawal moved balances in this batch (WETH9 clones). */
  wrappers: Set<string>;
  cost: ReadCost;
}

/** What a batch's write applies, planned before its transaction. */
export interface ReconcilePlan extends ReconcileWrites {
  /**
   * Balances read from the node for the batch's own deltas, by delta key (`erc20Deltas`,
   * `nft1155`): the writer stores these instead of adding the delta (`applyAbsolutes`).
   */
  absolutes20: Map<string, bigint>;
  absolutes1155: Map<string, bigint>;
  cost: ReadCost;
}

/** Reported per chain in /health and logs. */
export interface ReconcileStatus {
  enabled: boolean;
  reconciled_block: number | null;
  non_conserving_tokens: number;
  /** Balance reads (pairs) and JSON-RPC calls of the last batch, and per batch on average. */
  last_batch_reads: number;
  last_batch_rpc_calls: number;
  reads_per_batch: number;
  total_reads: number;
}
