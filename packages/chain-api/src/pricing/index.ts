export { compactPriceHistory } from '../store/pricing/compact-history.js';
export { pricingMigrations } from '../store/pricing/pricing-migrations.js';
export {
  createHistoricalPriceCache,
  type HistoricalPriceCache,
  type HistoricalPriceCacheOptions,
} from './historical-price-cache.js';
export { counterDepth, poolLiquidityUsd, poolPrice } from './math/pool-liquidity.js';
export type { PoolSnapshot, PoolType } from './math/pool-snapshot.js';
export { type Ratio, ratio, ratioToNumber } from './math/ratio.js';
export { type V2Reserves, v2Price } from './math/v2-price.js';
export { type V3State, v3Price, v3VirtualReserve } from './math/v3-price.js';
export { historicalPrices, type PriceAtQuery, pricesAt } from './price-queries.js';
export { anchorsOf, type PricingAnchors } from './route/anchors.js';
export { bestRoute, priceToken, type RouteQuote, type TokenPrice } from './route/select-route.js';
export { type PricingWorker, type StartPricingOptions, startPricing } from './start-pricing.js';
export {
  DEFAULT_LOW_LIQUIDITY_USD,
  DEFAULT_MIN_LIQUIDITY_USD,
  PricingConfigError,
  type PricingThresholds,
  pricingThresholdsFromEnv,
  SPAM_POOL_SIZE_USD,
} from './thresholds.js';
export {
  createTokenMetadataLookup,
  normalizeLogoUri,
  type TokenLinks,
  type TokenMetadataLookup,
} from './token-metadata.js';
