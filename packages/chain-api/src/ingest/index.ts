export {
  ChainIndexer,
  type ChainIndexerOptions,
  type ChainStatus,
  type IndexStats,
} from './chain-indexer.js';
export { fetchRange, InconsistentRangeError } from './fetch-range.js';
export { createLeaderLock, type LeaderLock } from './leader-lock.js';
export {
  type Indexers,
  indexOnce,
  type StartIndexersOptions,
  startIndexers,
} from './start-indexers.js';
