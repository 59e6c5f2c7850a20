import { pow10, type Ratio, ratio } from './ratio.js';

/** Reserves and decimals of a Uniswap v2 pair, token0 < token1 by address as the pair orders them. */
export interface V2Reserves {
  reserve0: bigint;
  reserve1: bigint;
  decimals0: number;
  decimals1: number;
}

/**
 * Price of one whole unit of a pair's token (`side` 0 or 1) in whole units of the other token,
 * from the reserves: for side 0 it is (reserve1 / 10^decimals1) / (reserve0 / 10^decimals0).
 * Returns null when either reserve is zero (no price).
 *
 * @example
 * // 1 WETH (18 dec, token0) : 3,000 USDC (6 dec, token1) -> 3000 USDC per WETH
 * v2Price({ reserve0: 10n ** 18n, reserve1: 3_000_000_000n, decimals0: 18, decimals1: 6 }, 0)
 * // {num: 3000000000n * 10n**18n, den: 10n**18n * 10n**6n}
 */
export function v2Price(pair: V2Reserves, side: 0 | 1): Ratio | null {
  const { reserve0, reserve1, decimals0, decimals1 } = pair;
  if (reserve0 <= 0n || reserve1 <= 0n) return null;
  return side === 0
    ? ratio(reserve1 * pow10(decimals0), reserve0 * pow10(decimals1))
    : ratio(reserve0 * pow10(decimals1), reserve1 * pow10(decimals0));
}
