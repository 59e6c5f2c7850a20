/**
 * Exact non-negative rationals over bigint. Pool math stays in these until the single final
 * conversion to a float, so 6/8/18-decimal tokens and Q64.96 prices lose no precision on the way.
 */
export interface Ratio {
  readonly num: bigint;
  /** Always > 0. */
  readonly den: bigint;
}

const pow10Cache: bigint[] = [];

/**
 * 10^n as a bigint (cached for the usual token decimals).
 *
 * @example
 * pow10(6) // 1000000n
 */
export function pow10(n: number): bigint {
  if (!Number.isInteger(n) || n < 0 || n > 255) throw new RangeError(`invalid decimals: ${n}`);
  let v = pow10Cache[n];
  if (v === undefined) {
    v = 10n ** BigInt(n);
    pow10Cache[n] = v;
  }
  return v;
}

/**
 * Builds a ratio; a zero denominator is a programming error.
 *
 * @example
 * ratio(3n, 4n) // {num: 3n, den: 4n}
 */
export function ratio(num: bigint, den: bigint): Ratio {
  if (den === 0n) throw new RangeError('ratio with zero denominator');
  if (den < 0n) return { num: -num, den: -den };
  return { num, den };
}

/** a × b, exact. */
export function mulRatio(a: Ratio, b: Ratio): Ratio {
  return { num: a.num * b.num, den: a.den * b.den };
}

/** a ÷ b, exact; dividing by zero is a RangeError. */
export function divRatio(a: Ratio, b: Ratio): Ratio {
  return ratio(a.num * b.den, a.den * b.num);
}

/** -1, 0 or 1 as a < b, a = b, a > b (exact cross-multiplication). */
export function compareRatio(a: Ratio, b: Ratio): -1 | 0 | 1 {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

/** The smaller of two ratios (a on ties). */
export function minRatio(a: Ratio, b: Ratio): Ratio {
  return compareRatio(b, a) < 0 ? b : a;
}

function bitLength(v: bigint): number {
  return v === 0n ? 0 : v.toString(2).length;
}

/**
 * Converts an exact ratio to the nearest-ish double (relative error below 2^-60 before the final
 * rounding), without overflowing on huge numerators or denominators such as sqrtPriceX96².
 * Values beyond the double range become Infinity or 0, like any float conversion.
 *
 * @example
 * ratioToNumber(ratio(1n, 3n)) // 0.3333333333333333
 */
export function ratioToNumber(r: Ratio): number {
  if (r.num === 0n) return 0;
  const negative = r.num < 0n;
  const num = negative ? -r.num : r.num;
  // Scale so the integer quotient carries 64 significant bits, then undo the scale in float.
  const shift = 64 - (bitLength(num) - bitLength(r.den));
  const q = shift >= 0 ? (num << BigInt(shift)) / r.den : num / (r.den << BigInt(-shift));
  const value = scaleByPowerOfTwo(Number(q), -shift);
  return negative ? -value : value;
}

function scaleByPowerOfTwo(x: number, exp: number): number {
  // 2 ** e is only exact for |e| <= 1023; step in chunks so subnormals and huge values still work.
  let v = x;
  let e = exp;
  while (e > 1000) {
    v *= 2 ** 1000;
    e -= 1000;
  }
  while (e < -1000) {
    v *= 2 ** -1000;
    e += 1000;
  }
  return v * 2 ** e;
}
