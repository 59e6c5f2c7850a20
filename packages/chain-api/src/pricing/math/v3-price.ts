import { pow10, type Ratio, ratio } from './ratio.js';

const Q96 = 1n << 96n;
const Q192 = 1n << 192n;

/** Current state of a Uniswap v3 pool as far as pricing needs it. */
export interface V3State {
  /** sqrt(token1 raw / token0 raw) as Q64.96. */
  sqrtPriceX96: bigint;
  /** Active (in-range) liquidity L. */
  liquidity: bigint;
  decimals0: number;
  decimals1: number;
}

/**
 * Price of one whole unit of a pool's token (`side` 0 or 1) in whole units of the other token:
 * for side 0, (sqrtPriceX96 / 2^96)^2 × 10^decimals0 / 10^decimals1. Null for an uninitialized pool.
 *
 * @example
 * // sqrtPriceX96 = 2^96 and equal decimals -> 1
 * v3Price({ sqrtPriceX96: 2n ** 96n, decimals0: 18, decimals1: 18 }, 0)
 */
export function v3Price(
  pool: Pick<V3State, 'sqrtPriceX96' | 'decimals0' | 'decimals1'>,
  side: 0 | 1,
): Ratio | null {
  const { sqrtPriceX96, decimals0, decimals1 } = pool;
  if (sqrtPriceX96 <= 0n) return null;
  const sq = sqrtPriceX96 * sqrtPriceX96;
  return side === 0
    ? ratio(sq * pow10(decimals0), Q192 * pow10(decimals1))
    : ratio(Q192 * pow10(decimals1), sq * pow10(decimals0));
}

/**
 * Virtual reserve of one side (raw token units) implied by the active liquidity at the current
 * price: token0 = L × 2^96 / sqrtPriceX96, token1 = L × sqrtPriceX96 / 2^96. It is the depth a v2
 * pair would need to behave like this pool near the current price.
 *
 * @example
 * v3VirtualReserve({ sqrtPriceX96: 2n ** 96n, liquidity: 5n }, 1) // {num: 5n * 2n**96n, den: 2n**96n}
 */
export function v3VirtualReserve(
  pool: Pick<V3State, 'sqrtPriceX96' | 'liquidity'>,
  side: 0 | 1,
): Ratio {
  const { sqrtPriceX96, liquidity } = pool;
  if (sqrtPriceX96 <= 0n || liquidity <= 0n) return { num: 0n, den: 1n };
  return side === 0 ? ratio(liquidity * Q96, sqrtPriceX96) : ratio(liquidity * sqrtPriceX96, Q96);
}
