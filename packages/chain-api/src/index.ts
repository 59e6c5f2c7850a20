/**
 * @sluice/chain-api: a self-hosted, Sim-compatible EVM wallet data API.
 *
 * @example
 * import { createApiServer, storeMigrations } from '@sluice/chain-api';
 */
export { createKeyVerifier, presentedKey } from './api/auth.js';
export {
  type ApiWarning,
  type ChainRegistry,
  createChainRegistry,
  resolveChains,
  type SelectableChain,
} from './api/chain-selector.js';
export type { ApiContext, PriceAtRequest, PricingLookups } from './api/context.js';
export { type CursorCodec, createCursorCodec } from './api/cursor.js';
export { loadCursorSecret } from './api/cursor-secret.js';
export { ApiError, type ErrorCode, type ErrorFormat, errorCatalogue } from './api/errors.js';
export type { RateLimitOptions } from './api/rate-limit.js';
export {
  type ChainStatus,
  checkpointStatusSource,
  type StatusSource,
} from './api/readiness.js';
export type { ResponseCacheConfig } from './api/response-cache/start-response-cache.js';
export type {
  StoreChangeHandlers,
  SubscribeStoreChanges,
} from './api/response-cache/store-changes.js';
export { type ApiServerOptions, createApiServer } from './api/server.js';
export { storeMigrations } from './api/store-migrations.js';
export type { ChainConfig } from './chains/index.js';
export { knownChains, loadChainConfigs } from './chains/index.js';
export {
  type ChainStoreChange,
  parseStoreChange,
  STORE_CHANGED_CHANNEL,
  type StoreChange,
} from './changes/index.js';
export { type AppConfig, ConfigError, loadConfig } from './config/index.js';
export { BaseError, errorCodes, InternalError, isRetryable } from './errors/index.js';
export { generateApiKey, hashApiKey } from './keys/api-key-format.js';
export { type ApiKeyRecord, createKeyStore, type KeyStore } from './keys/key-store.js';
export { createNodeClientRegistry, type NodeClientRegistry } from './rpc/index.js';
