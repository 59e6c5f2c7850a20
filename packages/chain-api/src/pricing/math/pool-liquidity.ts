import type { PoolSnapshot } from './pool-snapshot.js';
import { minRatio, mulRatio, pow10, type Ratio, ratio } from './ratio.js';
import { v2Price } from './v2-price.js';
import { v3Price, v3VirtualReserve } from './v3-price.js';

/**
 * Price of one whole `side` token in whole units of the pool's other token (null: no price).
 *
 * @example
 * poolPrice(wethUsdcPair, 0) // USDC per WETH when WETH is token0
 */
export function poolPrice(pool: PoolSnapshot, side: 0 | 1): Ratio | null {
  return pool.type === 'uniswap_v2' ? v2Price(pool, side) : v3Price(pool, side);
}

/**
 * Depth of the counter-asset (the token that is NOT `side`), in its whole units: the v2 reserve;
 * for v3 the virtual reserve of the active liquidity capped by what the pool really holds, so a
 * tiny range at an extreme price cannot claim depth nobody deposited.
 *
 * @example
 * counterDepth(wethUsdcPair, 0) // USDC reserve / 10^6
 */
export function counterDepth(pool: PoolSnapshot, side: 0 | 1): Ratio {
  const other: 0 | 1 = side === 0 ? 1 : 0;
  const held = other === 0 ? pool.reserve0 : pool.reserve1;
  const decimals = other === 0 ? pool.decimals0 : pool.decimals1;
  const raw: Ratio =
    pool.type === 'uniswap_v2'
      ? ratio(held > 0n ? held : 0n, 1n)
      : minRatio(v3VirtualReserve(pool, other), ratio(held > 0n ? held : 0n, 1n));
  return ratio(raw.num, raw.den * pow10(decimals));
}

/**
 * USD liquidity of a pool seen from `side`: twice the counter-asset depth times its USD price
 * (a balanced pool holds equal value on both sides; only the counter side's value is independent
 * of the price being measured, so it is the one that counts).
 *
 * @example
 * // 2,000 USDC against WETH, USDC = 1 USD -> 4,000 USD
 * poolLiquidityUsd(wethUsdcPair, 0, { num: 1n, den: 1n })
 */
export function poolLiquidityUsd(pool: PoolSnapshot, side: 0 | 1, counterUsd: Ratio): Ratio {
  return mulRatio(mulRatio(counterDepth(pool, side), counterUsd), { num: 2n, den: 1n });
}
