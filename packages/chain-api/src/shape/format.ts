/** Small conversions shared by the routes' row shaping. */

/** Block time as the peer writes it: ISO 8601 with an explicit offset, second precision. */
export function blockTimeIso(epochSeconds: number): string {
  return `${new Date(epochSeconds * 1000).toISOString().slice(0, 19)}+00:00`;
}

/** UTC timestamp with a Z, second precision (last_acquired). */
export function utcIso(epochSeconds: number): string {
  return `${new Date(epochSeconds * 1000).toISOString().slice(0, 19)}Z`;
}

/**
 * `amount / 10^decimals * price` without losing precision on huge integer amounts: the integer
 * part and 18 fractional digits are converted separately before the final float multiplication.
 */
export function usdValue(amount: string, decimals: number, priceUsd: number): number {
  const raw = BigInt(amount);
  const negative = raw < 0n;
  const abs = negative ? -raw : raw;
  const scale = decimalScale(decimals);
  const whole = abs / scale;
  const fraction = abs % scale;
  const fractionFloat = decimals === 0 ? 0 : Number(fraction) / Number(scale);
  const value = (Number(whole) + fractionFloat) * priceUsd;
  return negative ? -value : value;
}

// 10^decimals for each decimals value seen (0-255 per ERC20): a 1,000-token page asks ~20.
const scales: bigint[] = [];
function decimalScale(decimals: number): bigint {
  let scale = scales[decimals];
  if (scale === undefined) {
    scale = 10n ** BigInt(decimals);
    if (decimals >= 0 && decimals <= 255) scales[decimals] = scale;
  }
  return scale;
}

/** Adds `key: value` to `target` only when value is neither null nor undefined. */
export function setIfPresent<T extends object, K extends string, V>(
  target: T,
  key: K,
  value: V | null | undefined,
): void {
  if (value !== null && value !== undefined) (target as Record<string, unknown>)[key] = value;
}
