import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import type { ChainConfig } from '../chains/index.js';
import { createNodeClientRegistry, type NodeClientRegistry, type RpcClient } from '../rpc/index.js';
import {
  collectionsDue,
  fillFirstSeen,
  saveCollectionFailure,
  saveCollectionInfo,
} from '../store/nft/collection-store.js';
import {
  claimDue,
  claimSamples,
  enqueueMissing,
  markCollectionsDirty,
} from '../store/nft/metadata-store.js';
import { defaultRetrySchedule, type RetrySchedule, retryDelay } from './backoff.js';
import { discoverCollections, ensureCollections } from './collection-discovery.js';
import { describeError } from './errors.js';
import { normalizeGateways } from './gateways.js';
import { forEachConcurrent, KeyedLimiter } from './keyed-limiter.js';
import { emptyNftPassStats, type NftPassStats } from './nft-pass-stats.js';
import { createTokenProcessor } from './process-token.js';
import { readCollectionInfo } from './read-contract-uri.js';
import { createSafeFetcher, type Resolver } from './safe-fetch.js';
import { type ManualClassification, spamConfig } from './spam/spam-config.js';
import { computeSpamScores } from './spam/spam-store.js';
import type { SpamFeature } from './spam/weights.js';

export type { NftPassStats } from './nft-pass-stats.js';

import { requeueUriEvents } from './uri-events.js';

/** Options of {@link startNftWorker}. */
export interface NftWorkerOptions {
  db: Database;
  chains: readonly ChainConfig[];
  log: Logger;
  /** The process's node clients (the caller closes them); default: a registry of its own. */
  nodes?: NodeClientRegistry;
  /** Let the fetcher reach loopback/private addresses (devnet). Default false. */
  allowPrivateHosts?: boolean;
  /** Hosts (`host` or `host:port`) exempt from the SSRF address check, e.g. a devnet metadata server. */
  allowHosts?: string[];
  /** IPFS path gateway origin. Default `https://ipfs.io`. */
  ipfsGateway?: string;
  /** Arweave gateway origin. Default `https://arweave.net`. */
  arweaveGateway?: string;
  /** Tokens processed at once. Default 8. */
  concurrency?: number;
  /** Concurrent fetches per metadata host. Default 4. */
  perHostConcurrency?: number;
  /** Deadline of one document fetch (connect, redirects, body). Default 10 s. */
  fetchTimeoutMs?: number;
  /** Largest metadata document. Default 2 MiB. */
  maxBytes?: number;
  /** Idle wait between passes when there was nothing to do. Default 1 s. */
  pollIntervalMs?: number;
  /**
   * How often held tokens without a metadata row are looked for (a safety net: the indexer queues
   * tokens on first sight; this scans `nft_holdings`). Default 5 min; the first pass always runs it.
   */
  enqueueIntervalMs?: number;
  /** How often fetched tokens' URIs are re-read to catch changes. Default 24 h. */
  recheckIntervalMs?: number;
  /** Retry schedule of failures. Default 1 min doubling up to 24 h. */
  retry?: Partial<RetrySchedule>;
  /** Score at or above which a collection is spam. Default from `spam/weights.ts` (50). */
  spamThreshold?: number;
  /** Spam weights overriding `spam/weights.ts`. */
  spamWeights?: Partial<Record<SpamFeature, number>>;
  /** Externally flagged contracts (`0xaddr` or `chainId:0xaddr`). */
  denyList?: string[];
  /** Manual classifications (`0xaddr` or `chainId:0xaddr` -> spam / not_spam). */
  spamOverrides?: Array<[string, ManualClassification]>;
  /** Collections are re-scored at least this often (sales accrue). Default 10 min. */
  spamRescoreMs?: number;
  /**
   * New transfers of a scored collection (holders, sales, mints) re-score it, at most this often.
   * Default 10 s.
   */
  spamEvidenceDebounceMs?: number;
  /** Blocks of indexed transfers read per chain per pass to discover collections. Default 2,000. */
  discoveryBlocks?: number;
  /** Called after every pass, with what it did (metrics, tests). */
  onPass?: (stats: NftPassStats) => void;
  /** Host name resolver for the fetcher (tests). */
  resolve?: Resolver;
}

/** A running NFT worker. */
export interface NftWorker {
  /** Stops after aborting in-flight fetches; resolves when the worker is idle. */
  stop(): Promise<void>;
  /** Runs one full pass now (queue, fetch, collections, scores) and reports what it did. */
  runOnce(): Promise<NftPassStats>;
}

/**
 * Starts the background worker that fills `nft_metadata` (token URI, name, description, image,
 * attributes), `nft_collections` (name, symbol, spam score) from the indexer's tables. Tokens are
 * taken from a database queue (pending, failed and due, URI re-checks), fetched with bounded
 * concurrency through the SSRF-guarded fetcher; failures are recorded with an exponential retry
 * schedule. It only ever runs short single statements, so it never holds up the API.
 *
 * @example
 * const worker = await startNftWorker({ db, chains, log, ...config.nft });
 * // ...
 * await worker.stop();
 */
export async function startNftWorker(options: NftWorkerOptions): Promise<NftWorker> {
  const log = options.log.child({ component: 'nft-worker' });
  const db = options.db;
  const concurrency = options.concurrency ?? 8;
  const pollMs = options.pollIntervalMs ?? 1_000;
  const recheckMs = options.recheckIntervalMs ?? 24 * 3_600_000;
  const enqueueIntervalMs = options.enqueueIntervalMs ?? 300_000;
  for (const [name, value] of [
    ['discoveryBlocks', options.discoveryBlocks],
    ['spamEvidenceDebounceMs', options.spamEvidenceDebounceMs],
  ] as const) {
    if (
      value !== undefined &&
      !(Number.isSafeInteger(value) && value >= (name === 'discoveryBlocks' ? 1 : 0))
    ) {
      throw new RangeError(
        `${name} must be a ${name === 'discoveryBlocks' ? 'positive' : 'non-negative'} integer, got ${value}`,
      );
    }
  }
  const fetchTimeoutMs = options.fetchTimeoutMs ?? 10_000;
  const schedule: RetrySchedule = { ...defaultRetrySchedule, ...options.retry };
  const gateways = normalizeGateways({
    ...(options.ipfsGateway ? { ipfsGateway: options.ipfsGateway } : {}),
    ...(options.arweaveGateway ? { arweaveGateway: options.arweaveGateway } : {}),
  });
  const config = spamConfig({
    ...(options.spamThreshold !== undefined ? { threshold: options.spamThreshold } : {}),
    ...(options.spamWeights ? { weights: options.spamWeights } : {}),
    denyList: options.denyList ?? [],
    overrides: options.spamOverrides ?? [],
  });
  const fetcher = createSafeFetcher({
    allowPrivateHosts: options.allowPrivateHosts ?? false,
    allowHosts: options.allowHosts ?? [],
    timeoutMs: fetchTimeoutMs,
    ...(options.maxBytes ? { maxBytes: options.maxBytes } : {}),
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  const perHost = new KeyedLimiter(options.perHostConcurrency ?? 4);
  const ownNodes = options.nodes ? undefined : createNodeClientRegistry();
  const nodes = options.nodes ?? (ownNodes as NodeClientRegistry);
  const clients = new Map<number, RpcClient>();
  for (const chain of options.chains) {
    const client = nodes.client(chain, 'nft');
    if (client) clients.set(chain.chainId, client);
  }
  const chainIds = [...clients.keys()];
  const indexedChains = options.chains.filter((c) => clients.has(c.chainId));
  const abort = new AbortController();
  let stopping = false;
  let lastEnqueue = 0;
  let discoveryBehind = false;

  const processToken = createTokenProcessor({
    db,
    clients,
    log,
    fetcher,
    gateways,
    perHost,
    schedule,
    recheckMs,
    signal: abort.signal,
    stopping: () => stopping,
    ...(options.maxBytes ? { maxBytes: options.maxBytes } : {}),
  });

  async function runPass(): Promise<NftPassStats> {
    const stats = emptyNftPassStats();
    try {
      await passSteps(stats);
    } catch (error) {
      // Report what the failed pass already committed before the caller retries it.
      options.onPass?.({ ...stats, error: describeError(error) });
      throw error;
    }
    options.onPass?.(stats);
    return stats;
  }

  async function passSteps(stats: NftPassStats): Promise<void> {
    if (Date.now() - lastEnqueue >= enqueueIntervalMs) {
      stats.queued = await enqueueMissing(db);
      lastEnqueue = Date.now();
    }
    // Collections come from the indexer's transfers as they are indexed (not from the periodic
    // safety net above), so a new collection is scored within a pass or two of being indexed.
    const discovery = await discoverCollections(db, indexedChains, {
      maxBlocks: options.discoveryBlocks ?? 2_000,
      debounceMs: options.spamEvidenceDebounceMs ?? 10_000,
    });
    stats.discovered = discovery.discovered;
    stats.touched = discovery.touched;
    discoveryBehind = discovery.behind;
    stats.requeued = await requeueUriEvents(db, indexedChains);
    const leaseMs = fetchTimeoutMs * 3 + 60_000;
    const claimLimit = concurrency * 4;
    const samples = await claimSamples(db, discovery.found, claimLimit, leaseMs);
    const tokens = [
      ...samples,
      ...(await claimDue(db, chainIds, claimLimit - samples.length, leaseMs)),
    ];
    stats.discovered += await ensureCollections(db, tokens);
    await fillFirstSeen(db);
    const pending = await collectionsDue(db, chainIds, 50);
    await forEachConcurrent(pending, concurrency, async (collection) => {
      const client = clients.get(collection.chainId);
      if (!client || stopping) return;
      try {
        await saveCollectionInfo(
          db,
          collection,
          await readCollectionInfo(client, collection.contract),
        );
        stats.collections++;
      } catch (error) {
        await saveCollectionFailure(db, collection, retryDelay(collection.attempts + 1, schedule));
        log.debug(
          { contract: collection.contract, error: describeError(error) },
          'collection info failed',
        );
      }
    });
    const changed = new Map<string, { chainId: number; contract: string }>();
    await forEachConcurrent(tokens, concurrency, async (token) => {
      if (await processToken(token, stats)) {
        changed.set(`${token.chainId}:${token.contract}`, token);
      }
    });
    // Re-score the collections whose stored metadata changed in this pass.
    await markCollectionsDirty(db, [...changed.values()]);
    stats.scored = await computeSpamScores(db, config, {
      limit: 200,
      maxAgeMs: options.spamRescoreMs ?? 600_000,
      chainIds: options.chains.map((c) => c.chainId),
    });
  }

  // Passes never overlap: the loop and runOnce() queue behind each other.
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = (fn: () => Promise<NftPassStats>): Promise<NftPassStats> => {
    const result = tail.then(fn, fn);
    tail = result.catch(() => undefined);
    return result;
  };
  const runOnce = (): Promise<NftPassStats> =>
    exclusive(() => {
      lastEnqueue = 0;
      return runPass();
    });

  let wake: (() => void) | undefined;
  const loop = (async () => {
    let failures = 0;
    while (!stopping) {
      let busy = false;
      try {
        const stats = await exclusive(runPass);
        busy =
          discoveryBehind ||
          stats.fetched + stats.failed + stats.unchanged + stats.skipped >= concurrency * 4;
        if (stats.fetched + stats.failed + stats.discovered + stats.scored > 0) {
          log.debug(stats, 'nft pass');
        }
        failures = 0;
      } catch (error) {
        failures++;
        if (!stopping) log.warn({ error: describeError(error) }, 'nft worker pass failed');
      }
      if (stopping || busy) continue;
      const delay = failures > 0 ? Math.min(30_000, pollMs * 2 ** failures) : pollMs;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  })();

  log.info({ chains: chainIds, ipfsGateway: gateways.ipfsGateway }, 'nft worker started');
  return {
    runOnce,
    async stop() {
      if (stopping) return loop;
      stopping = true;
      abort.abort();
      wake?.();
      await loop;
      fetcher.close();
      await ownNodes?.close();
      log.info('nft worker stopped');
    },
  };
}
