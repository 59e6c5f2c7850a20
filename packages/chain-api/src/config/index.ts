export { ConfigError } from '../errors/index.js';
export type { AppConfig } from './app-config.js';
export type { Env } from './env-readers.js';
export { loadConfig, loadProcessConfig } from './load-config.js';
export { type ManualClassification, type NftEnvOptions, nftConfigFromEnv } from './nft-config.js';
export {
  DEFAULT_LOW_LIQUIDITY_USD,
  DEFAULT_MIN_LIQUIDITY_USD,
  defaultPricingThresholds,
  type PricingThresholds,
  pricingThresholdsFromEnv,
} from './pricing-config.js';
export {
  defaultRequestLimits,
  type RequestLimits,
  requestLimitsFromEnv,
} from './request-limits-config.js';
export {
  defaultWalletsOptions,
  type WalletsOptions,
  walletsOptionsFromEnv,
} from './wallets-config.js';
export {
  DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS,
  type WebhooksConfig,
  webhooksConfigFromEnv,
} from './webhooks-config.js';
