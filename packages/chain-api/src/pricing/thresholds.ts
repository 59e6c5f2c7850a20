import { ConfigError } from '../errors/index.js';

/** exclude_spam_tokens drops tokens whose pricing pool holds less than this (USD), per the spec. */
export const SPAM_POOL_SIZE_USD = 100;

export {
  DEFAULT_LOW_LIQUIDITY_USD,
  DEFAULT_MIN_LIQUIDITY_USD,
  defaultPricingThresholds,
  type PricingThresholds,
  pricingThresholdsFromEnv,
} from '../config/pricing-config.js';

/** The one configuration error, under the name pricing code has always thrown. */
export { ConfigError as PricingConfigError };
