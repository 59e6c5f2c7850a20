/** Pool kinds pricing understands; the strings are the API's `pool.pool_type` values. */
export type PoolType = 'uniswap_v2' | 'uniswap_v3';

/** Everything pricing needs to know about one pool at one moment. Addresses are lower-case. */
export interface PoolSnapshot {
  address: string;
  type: PoolType;
  token0: string;
  token1: string;
  decimals0: number;
  decimals1: number;
  /**
   * Tokens held by the pool, raw units: v2 reserves from `Sync`; v3 balances tracked from
   * Mint/Swap/Collect amounts (what liquidity providers actually deposited).
   */
  reserve0: bigint;
  reserve1: bigint;
  /** v3 only: Q64.96 square-root price (0 until initialized). */
  sqrtPriceX96: bigint;
  /** v3 only: active liquidity L. */
  liquidity: bigint;
}
