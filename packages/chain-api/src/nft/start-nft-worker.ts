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
  type ClaimedToken,
  claimDue,
  claimSamples,
  enqueueMissing,
  markCollectionsDirty,
  saveFailure,
  saveRetryLater,
  saveSuccess,
  saveUnchanged,
} from '../store/nft/metadata-store.js';
import { defaultRetrySchedule, type RetrySchedule, retryDelay } from './backoff.js';
import { boundMetadata, storedMetadataLimits, storedTokenUri } from './bound-metadata.js';
import { discoverCollections, ensureCollections } from './collection-discovery.js';
import { describeError, NftError } from './errors.js';
import { normalizeGateways } from './gateways.js';
import { forEachConcurrent, KeyedLimiter } from './keyed-limiter.js';
import { loadMetadata } from './load-metadata.js';
import { readCollectionInfo, readTokenUri } from './read-contract-uri.js';
import { resolveUri } from './resolve-uri.js';
import { createSafeFetcher, type Resolver } from './safe-fetch.js';
import { type ManualClassification, spamConfig } from './spam/spam-config.js';
import { computeSpamScores } from './spam/spam-store.js';
import { isContentAddressedUri } from './spam/text-signals.js';
import type { SpamFeature } from './spam/weights.js';
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

/** What one pass of the worker did. */
export interface NftPassStats {
  queued: number;
  fetched: number;
  unchanged: number;
  failed: number;
  /** Tokens nobody holds any more, put aside without an RPC call. */
  skipped: number;
  /** Tokens put back because the chain's node did not answer (not counted as failures). */
  deferred: number;
  /** Tokens re-queued by an ERC-1155 `URI` event. */
  requeued: number;
  /** Collections seen for the first time (from indexed transfers or queued tokens). */
  discovered: number;
  /** Known collections whose new transfers asked for a re-score. */
  touched: number;
  /** Collections whose name/symbol were read from the contract. */
  collections: number;
  scored: number;
  /**
   * Why the pass stopped early, when it did: the counts above are the work it committed before
   * that (discovery and fetched metadata are saved as they go, so they are not lost with the pass).
   */
  error?: string;
}

function emptyStats(): NftPassStats {
  return {
    queued: 0,
    fetched: 0,
    unchanged: 0,
    failed: 0,
    skipped: 0,
    deferred: 0,
    requeued: 0,
    discovered: 0,
    touched: 0,
    collections: 0,
    scored: 0,
  };
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
  const rpcRetryMs = 30_000;
  // A token whose read the node never answers (a uri() that runs out the timeout every time)
  // is retried every 30 s this many times, then counted as failing (with the failure backoff).
  const maxDeferrals = 5;
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

  /** Processes one claimed token; true when its stored metadata changed. */
  async function processToken(token: ClaimedToken, stats: NftPassStats): Promise<boolean> {
    const client = clients.get(token.chainId);
    if (!client) return false;
    if (!token.held) {
      // Burned (or all units gone): nothing to show, and tokenURI usually reverts. Look again
      // at the slowest retry pace in case it is minted again.
      await saveFailure(db, token, null, 'NOT_HELD: no current holder', schedule.maxMs);
      stats.skipped++;
      return false;
    }
    let uri: string | null = null;
    try {
      const read = await readTokenUri(client, token.contract, token.tokenId, token.standard);
      // What the store keeps of it: verbatim, or a digest of a long data: URI.
      uri = storedTokenUri(read);
      if (uri.length > storedMetadataLimits.uriChars) {
        uri = null;
        throw new NftError('TOO_LARGE', `token URI of ${read.length} characters`);
      }
      // A daily re-check: immutable (IPFS/Arweave/data:) documents are only refetched when the
      // URI changed; server-hosted ones are refetched anyway (reveals without ERC-4906 events).
      if (token.status === 'ok' && token.uri === uri && isContentAddressedUri(uri)) {
        await saveUnchanged(db, token, recheckMs);
        stats.unchanged++;
        return false;
      }
      const source = resolveUri(read, gateways);
      const host = source.kind === 'url' ? new URL(source.url).host : 'inline';
      const loaded = await perHost.run(host, () =>
        loadMetadata(read, {
          fetcher,
          gateways,
          signal: abort.signal,
          ...(options.maxBytes ? { maxBytes: options.maxBytes } : {}),
        }),
      );
      const bounded = boundMetadata(loaded);
      const limited = [
        ...(uri === read
          ? []
          : [`uri: data: URI of ${read.length} characters stored as its digest`]),
        ...(bounded.limited === null ? [] : [bounded.limited]),
      ];
      const saved = await saveSuccess(
        db,
        token,
        uri,
        bounded.meta,
        recheckMs,
        limited.length > 0 ? limited.join('; ') : null,
      );
      if (!saved) return false;
      stats.fetched++;
      return true;
    } catch (error) {
      if (stopping) return false; // the lease expires and the token is retried on the next start
      if (
        error instanceof NftError &&
        error.code === 'RPC_UNAVAILABLE' &&
        token.deferrals < maxDeferrals
      ) {
        await saveRetryLater(db, token, rpcRetryMs);
        stats.deferred++;
        return false;
      }
      const text = describeError(error);
      // A document refused for its size stays refused until its URI changes: the slowest pace.
      const delay =
        error instanceof NftError && error.code === 'TOO_LARGE'
          ? schedule.maxMs
          : retryDelay(token.attempts + 1, schedule);
      await saveFailure(db, token, uri, text, delay);
      stats.failed++;
      log.debug(
        {
          chainId: token.chainId,
          contract: token.contract,
          tokenId: token.tokenId.toString(),
          error: text,
        },
        'nft metadata failed',
      );
      return true;
    }
  }

  async function runPass(): Promise<NftPassStats> {
    const stats = emptyStats();
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
