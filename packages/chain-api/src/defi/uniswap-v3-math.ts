/**
 * Uniswap v3 position math in exact integers, ported line by line from the Solidity libraries
 * the contracts themselves use (v3-core TickMath, v3-periphery LiquidityAmounts and
 * PositionValue), so amounts equal what `decreaseLiquidity` and `collect` would pay.
 */

export const MIN_TICK = -887272;
export const MAX_TICK = 887272;

const Q96 = 1n << 96n;
const Q128 = 1n << 128n;
const MAX_UINT256 = (1n << 256n) - 1n;

// TickMath.getSqrtRatioAtTick: 1/sqrt(1.0001)^(2^i) as Q128.128, for bits 1..19 of |tick|.
const TICK_FACTORS: readonly bigint[] = [
  0xfff97272373d413259a46990580e213an,
  0xfff2e50f5f656932ef12357cf3c7fdccn,
  0xffe5caca7e10e4e61c3624eaa0941cd0n,
  0xffcb9843d60f6159c9db58835c926644n,
  0xff973b41fa98c081472e6896dfb254c0n,
  0xff2ea16466c96a3843ec78b326b52861n,
  0xfe5dee046a99a2a811c461f1969c3053n,
  0xfcbe86c7900a88aedcffc83b479aa3a4n,
  0xf987a7253ac413176f2b074cf7815e54n,
  0xf3392b0822b70005940c7a398e4b70f3n,
  0xe7159475a2c29b7443b29c7fa6e889d9n,
  0xd097f3bdfd2022b8845ad8f792aa5825n,
  0xa9f746462d870fdf8a65dc1f90e061e5n,
  0x70d869a156d2a1b890bb3df62baf32f7n,
  0x31be135f97d08fd981231505542fcfa6n,
  0x9aa508b5b7a84e1c677de54f3e99bc9n,
  0x5d6af8dedb81196699c329225ee604n,
  0x2216e584f5fa1ea926041bedfe98n,
  0x48a170391f7dc42444e8fa2n,
];

/**
 * sqrt(1.0001^tick) as a Q64.96, exactly as TickMath.getSqrtRatioAtTick.
 *
 * @example
 * sqrtRatioAtTick(0) // 2n ** 96n
 */
export function sqrtRatioAtTick(tick: number): bigint {
  if (!Number.isInteger(tick) || tick < MIN_TICK || tick > MAX_TICK) {
    throw new RangeError(`tick out of range: ${tick}`);
  }
  const abs = BigInt(Math.abs(tick));
  let ratio = abs & 1n ? 0xfffcb933bd6fad37aa2d162d1a594001n : 1n << 128n;
  TICK_FACTORS.forEach((factor, i) => {
    if (abs & (1n << BigInt(i + 1))) ratio = (ratio * factor) >> 128n;
  });
  if (tick > 0) ratio = MAX_UINT256 / ratio;
  // Q128.128 -> Q128.96, rounding up.
  return (ratio >> 32n) + (ratio % (1n << 32n) === 0n ? 0n : 1n);
}

function amount0ForLiquidity(a: bigint, b: bigint, liquidity: bigint): bigint {
  const [lo, hi] = a > b ? [b, a] : [a, b];
  return ((liquidity << 96n) * (hi - lo)) / hi / lo;
}

function amount1ForLiquidity(a: bigint, b: bigint, liquidity: bigint): bigint {
  const [lo, hi] = a > b ? [b, a] : [a, b];
  return (liquidity * (hi - lo)) / Q96;
}

/**
 * Token amounts a position's liquidity is worth at the pool's current price, rounded down, as
 * LiquidityAmounts.getAmountsForLiquidity (what burning the liquidity pays out).
 *
 * @example
 * amountsForLiquidity(2n ** 96n, -60, 60, 10n ** 18n) // [~2.99e15, ~2.99e15]
 */
export function amountsForLiquidity(
  sqrtPriceX96: bigint,
  tickLower: number,
  tickUpper: number,
  liquidity: bigint,
): [amount0: bigint, amount1: bigint] {
  let a = sqrtRatioAtTick(tickLower);
  let b = sqrtRatioAtTick(tickUpper);
  if (a > b) [a, b] = [b, a];
  if (sqrtPriceX96 <= a) return [amount0ForLiquidity(a, b, liquidity), 0n];
  if (sqrtPriceX96 < b) {
    return [
      amount0ForLiquidity(sqrtPriceX96, b, liquidity),
      amount1ForLiquidity(a, sqrtPriceX96, liquidity),
    ];
  }
  return [0n, amount1ForLiquidity(a, b, liquidity)];
}

/** Subtraction modulo 2^256, as Solidity 0.7's unchecked uint256 arithmetic. */
const sub256 = (a: bigint, b: bigint): bigint => (a - b) & MAX_UINT256;

/** A pool tick's fee growth outside it (Q128.128 per unit of liquidity), per token. */
export interface TickFeeGrowth {
  feeGrowthOutside0X128: bigint;
  feeGrowthOutside1X128: bigint;
}

/** What the fee computation needs of a position (NonfungiblePositionManager.positions). */
export interface V3PositionFees {
  tickLower: number;
  tickUpper: number;
  liquidity: bigint;
  feeGrowthInside0LastX128: bigint;
  feeGrowthInside1LastX128: bigint;
  tokensOwed0: bigint;
  tokensOwed1: bigint;
}

/** The pool state the fee computation needs. */
export interface V3PoolFees {
  tick: number;
  feeGrowthGlobal0X128: bigint;
  feeGrowthGlobal1X128: bigint;
  lower: TickFeeGrowth;
  upper: TickFeeGrowth;
}

/**
 * Uncollected fees of a position: tokens already owed plus the fees accrued since its last
 * update, as PositionValue.fees (and so as a `collect` with maximum amounts would pay).
 *
 * @example
 * const [fees0, fees1] = uncollectedFees(position, pool);
 */
export function uncollectedFees(
  position: V3PositionFees,
  pool: V3PoolFees,
): [fees0: bigint, fees1: bigint] {
  const inside = (global: bigint, lower: bigint, upper: bigint): bigint => {
    if (pool.tick < position.tickLower) return sub256(lower, upper);
    if (pool.tick < position.tickUpper) return sub256(sub256(global, lower), upper);
    return sub256(upper, lower);
  };
  const inside0 = inside(
    pool.feeGrowthGlobal0X128,
    pool.lower.feeGrowthOutside0X128,
    pool.upper.feeGrowthOutside0X128,
  );
  const inside1 = inside(
    pool.feeGrowthGlobal1X128,
    pool.lower.feeGrowthOutside1X128,
    pool.upper.feeGrowthOutside1X128,
  );
  const accrued = (now: bigint, last: bigint) => (sub256(now, last) * position.liquidity) / Q128;
  return [
    accrued(inside0, position.feeGrowthInside0LastX128) + position.tokensOwed0,
    accrued(inside1, position.feeGrowthInside1LastX128) + position.tokensOwed1,
  ];
}

/**
 * Whether the pool's current tick lies in the position's range (it earns fees and holds both
 * tokens), the same test the pool applies: tickLower <= tick < tickUpper.
 *
 * @example
 * inRange(5, -60, 60) // true
 */
export function inRange(tick: number, tickLower: number, tickUpper: number): boolean {
  return tickLower <= tick && tick < tickUpper;
}
