import type { Queryable } from '@sluice/db';
import type { ChainConfig } from '../chains/chain-config.js';
import type { RpcClient } from '../rpc/create-rpc-client.js';
import type { PriceCoverage } from '../wallets/price-coverage.js';
import type { WalletGate } from '../wallets/wallet-gate.js';
import type { ChainRegistry } from './chain-selector.js';
import type { CursorCodec } from './cursor.js';
import type { PastStateReader } from './history/state-reader.js';
import type { RequestScope } from './limits/request-scope.js';
import type { ReadDb } from './queries/prepared-query.js';
import type { StatusSource } from './readiness.js';
import type { ResponseCaching } from './response-cache/send-cached.js';

/** A historical price request: the latest price at or before `time`. */
export interface PriceAtRequest {
  chainId: number;
  /** Lower-case token address or `native`. */
  token: string;
  time: Date;
}

/** Pricing lookups the API uses (provided by src/pricing; absent: no history, no links). */
export interface PricingLookups {
  /** USD price at each requested time, aligned with `items`; null = no price then (omitted). */
  pricesAt(items: readonly PriceAtRequest[]): Promise<(number | null)[]>;
  /**
   * Same contract, for `historical_prices` (times relative to now): may resolve to the minute and
   * memoize settled answers. Defaults to `pricesAt`.
   */
  historicalPricesAt?(items: readonly PriceAtRequest[]): Promise<(number | null)[]>;
  /** Logo and website of a token (`native` for the chain's native asset). */
  tokenLinks(chainId: number, token: string): { logo?: string; url?: string } | undefined;
  /**
   * The same lookups with their statements read through `db` (a request's bounded view of the
   * store); memos stay shared. Absent: the lookups read as they were made.
   */
  readingFrom?(db: ReadDb): PricingLookups;
}

/**
 * What every route needs: the store, the served chains, the cursor codec and readiness. A
 * request's handler works with `requestContext(ctx, request)`: the same, with the store and node
 * reads bound to its scope (deadline, per-key slots, limits).
 */
export interface ApiContext {
  db: ReadDb;
  /** The request this context is bound to; absent: the server's shared context (no request). */
  scope?: RequestScope | undefined;
  /** Where the API's own small writes go (probe answers): the primary, never a standby. */
  writeDb: Queryable;
  registry: ChainRegistry<ChainConfig>;
  cursors: CursorCodec;
  statusSource: StatusSource;
  /** Pool size (USD) under which `low_liquidity` is true when the pricing row has no flag. */
  lowLiquidityUsd: number;
  /** Pool size (USD) under which `exclude_spam_tokens` drops a token. */
  spamPoolUsd: number;
  pricing?: PricingLookups | undefined;
  /** Node reads at past blocks (history answers); absent: such balances are reported unavailable. */
  pastState?: PastStateReader | undefined;
  /** Reuse of serialized responses until the store changes; absent: off. */
  caching?: ResponseCaching | undefined;
  /** JSON-RPC clients per served chain, for state the store does not hold (DeFi positions). */
  rpc?: ReadonlyMap<number, RpcClient> | undefined;
  /** Wallets-mode chains: first-request tracking and backfill wait (src/wallets); absent: none. */
  wallets?: WalletGate | undefined;
  /** Wallets-mode chains with factories: from when prices are known (src/wallets/price-coverage). */
  priceCoverage?: PriceCoverage | undefined;
}

/** This server's supported-chains URL, for UNSUPPORTED_CHAIN_IDS warnings. */
export function supportedChainsUrl(request: { protocol: string; host: string }): string {
  return `${request.protocol}://${request.host}/v1/evm/supported-chains`;
}
