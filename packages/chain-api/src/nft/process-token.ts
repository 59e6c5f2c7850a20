import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import type { RpcClient } from '../rpc/index.js';
import {
  type ClaimedToken,
  saveFailure,
  saveRetryLater,
  saveSuccess,
  saveUnchanged,
} from '../store/nft/metadata-store.js';
import { type RetrySchedule, retryDelay } from './backoff.js';
import { boundMetadata, storedMetadataLimits, storedTokenUri } from './bound-metadata.js';
import { describeError, NftError } from './errors.js';
import type { Gateways } from './gateways.js';
import type { KeyedLimiter } from './keyed-limiter.js';
import { loadMetadata } from './load-metadata.js';
import type { NftPassStats } from './nft-pass-stats.js';
import { readTokenUri } from './read-contract-uri.js';
import { resolveUri } from './resolve-uri.js';
import type { SafeFetcher } from './safe-fetch.js';
import { isContentAddressedUri } from './spam/text-signals.js';

/** Retry pace of a token whose node did not answer (not counted as a failure). */
const rpcRetryMs = 30_000;
// A token whose read the node never answers (a uri() that runs out the timeout every time)
// is retried every 30 s this many times, then counted as failing (with the failure backoff).
const maxDeferrals = 5;

/** What {@link createTokenProcessor} works with: the worker's clients, fetcher and pace. */
export interface TokenProcessorDeps {
  db: Database;
  /** Node client per chain id (a token of a chain without one is left alone). */
  clients: ReadonlyMap<number, RpcClient>;
  log: Logger;
  fetcher: SafeFetcher;
  gateways: Gateways;
  /** Concurrent fetches per metadata host. */
  perHost: KeyedLimiter;
  schedule: RetrySchedule;
  /** How long a fetched document stays fresh before its URI is read again. */
  recheckMs: number;
  signal: AbortSignal;
  /** True once the worker stops: failures then are not recorded (the lease retries them). */
  stopping: () => boolean;
  maxBytes?: number;
}

/**
 * One claimed token's pass: read its URI from the contract, fetch and bound the document, and
 * record success, an unchanged re-check, a deferral (node down) or a failure with its backoff.
 *
 * @example
 * const processToken = createTokenProcessor({ db, clients, log, fetcher, gateways, perHost,
 *   schedule, recheckMs, signal, stopping: () => false });
 * const changed = await processToken(token, emptyNftPassStats());
 */
export function createTokenProcessor(
  deps: TokenProcessorDeps,
): (token: ClaimedToken, stats: NftPassStats) => Promise<boolean> {
  const { db, clients, log, fetcher, gateways, perHost, schedule, recheckMs } = deps;
  /** Processes one claimed token; true when its stored metadata changed. */
  return async function processToken(token: ClaimedToken, stats: NftPassStats): Promise<boolean> {
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
          signal: deps.signal,
          ...(deps.maxBytes ? { maxBytes: deps.maxBytes } : {}),
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
      if (deps.stopping()) return false; // the lease expires and the token is retried on the next start
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
  };
}
