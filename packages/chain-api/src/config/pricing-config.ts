import { ConfigError } from '../errors/index.js';
import type { Env } from './env-readers.js';

/** Default pool size under which a balance is flagged `low_liquidity`. */
export const DEFAULT_LOW_LIQUIDITY_USD = 10_000;

/**
 * Default pool size under which a token is reported unpriced: below it a pool's price is too
 * cheap to set (a few dollars buy any price), so it must not turn a dust airdrop into a fortune.
 */
export const DEFAULT_MIN_LIQUIDITY_USD = 1_000;

/** Liquidity thresholds of the pricing worker, in USD. */
export interface PricingThresholds {
  /** Below this pool size the token has no price (manipulation guard). */
  minLiquidityUsd: number;
  /** Below this pool size `low_liquidity` is true. */
  lowLiquidityUsd: number;
}

export const defaultPricingThresholds: PricingThresholds = {
  minLiquidityUsd: DEFAULT_MIN_LIQUIDITY_USD,
  lowLiquidityUsd: DEFAULT_LOW_LIQUIDITY_USD,
};

function readUsd(env: Env, key: string, fallback: number): number {
  const raw = env[key];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) {
    throw new ConfigError(key, `${key} must be a non-negative number of USD, got "${raw}"`);
  }
  return value;
}

/**
 * Reads `PRICING_MIN_LIQUIDITY_USD` (default 1,000) and `LOW_LIQUIDITY_USD` (default 10,000).
 *
 * @example
 * pricingThresholdsFromEnv({ LOW_LIQUIDITY_USD: '25000' }) // {minLiquidityUsd: 1000, lowLiquidityUsd: 25000}
 */
export function pricingThresholdsFromEnv(env: Env): PricingThresholds {
  return {
    minLiquidityUsd: readUsd(env, 'PRICING_MIN_LIQUIDITY_USD', DEFAULT_MIN_LIQUIDITY_USD),
    lowLiquidityUsd: readUsd(env, 'LOW_LIQUIDITY_USD', DEFAULT_LOW_LIQUIDITY_USD),
  };
}
