/** What one pass of the worker did. */
export interface NftPassStats {
  queued: number;
  fetched: number;
  unchanged: number;
  failed: number;
  /** Tokens nobody holds any more, put aside without an RPC call. */
  skipped: number;
  /** Tokens put back because the chain's node did not answer (not counted as failures). */
  deferred: number;
  /** Tokens re-queued by an ERC-1155 `URI` event. */
  requeued: number;
  /** Collections seen for the first time (from indexed transfers or queued tokens). */
  discovered: number;
  /** Known collections whose new transfers asked for a re-score. */
  touched: number;
  /** Collections whose name/symbol were read from the contract. */
  collections: number;
  scored: number;
  /**
   * Why the pass stopped early, when it did: the counts above are the work it committed before
   * that (discovery and fetched metadata are saved as they go, so they are not lost with the pass).
   */
  error?: string;
}

/** A pass that has done nothing yet. */
export function emptyNftPassStats(): NftPassStats {
  return {
    queued: 0,
    fetched: 0,
    unchanged: 0,
    failed: 0,
    skipped: 0,
    deferred: 0,
    requeued: 0,
    discovered: 0,
    touched: 0,
    collections: 0,
    scored: 0,
  };
}
