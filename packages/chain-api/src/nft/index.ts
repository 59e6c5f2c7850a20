export { type NftEnvOptions, nftConfigFromEnv } from '../config/nft-config.js';
export { nftMigrations } from '../store/nft/nft-migrations.js';
export { defaultRetrySchedule, type RetrySchedule, retryDelay } from './backoff.js';
export {
  describeError,
  MetadataError,
  NftError,
  type NftErrorCode,
  SafeFetchError,
  UriError,
} from './errors.js';
export { defaultGateways, type Gateways, normalizeGateways } from './gateways.js';
export { loadMetadata } from './load-metadata.js';
export {
  type NftAttribute,
  type NormalizedMetadata,
  normalizeMetadata,
} from './normalize-metadata.js';
export { readCollectionInfo, readTokenUri } from './read-contract-uri.js';
export { type MetadataSource, resolveUri, substituteTokenId, toHttpUrl } from './resolve-uri.js';
export {
  createSafeFetcher,
  type SafeFetcher,
  type SafeFetcherOptions,
  type SafeResponse,
} from './safe-fetch.js';
export {
  type CollectionSignals,
  type SpamExplanation,
  type SpamScore,
  scoreCollection,
} from './spam/score-collection.js';
export { type ManualClassification, type SpamConfig, spamConfig } from './spam/spam-config.js';
export { computeSpamScores, setSpamOverride } from './spam/spam-store.js';
export * as spamWeights from './spam/weights.js';
export {
  type NftPassStats,
  type NftWorker,
  type NftWorkerOptions,
  startNftWorker,
} from './start-nft-worker.js';
