/** Uniswap v3 price math the scenario needs (exact bigint, no floats). */

export const MIN_TICK = -887272;
export const MAX_TICK = 887272;

/** Integer square root (floor). */
export function sqrtBigInt(value: bigint): bigint {
  if (value < 0n) throw new RangeError('square root of a negative number');
  if (value < 2n) return value;
  let x = value;
  let y = (x + 1n) / 2n;
  while (y < x) {
    x = y;
    y = (x + value / x) / 2n;
  }
  return x;
}

/**
 * sqrtPriceX96 for a pool holding `amount1` of token1 per `amount0` of token0 (raw units):
 * floor(sqrt(amount1 / amount0) * 2^96).
 *
 * @example
 * encodeSqrtPriceX96(1n, 1n); // 2n ** 96n
 */
export function encodeSqrtPriceX96(amount1: bigint, amount0: bigint): bigint {
  if (amount0 <= 0n || amount1 <= 0n) throw new RangeError('amounts must be positive');
  return sqrtBigInt((amount1 << 192n) / amount0);
}

/** The widest tick range usable with a tick spacing: [lower, upper]. */
export function fullRangeTicks(tickSpacing: number): [number, number] {
  const upper = Math.floor(MAX_TICK / tickSpacing) * tickSpacing;
  return [-upper, upper];
}
