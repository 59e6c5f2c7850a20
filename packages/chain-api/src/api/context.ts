import type { ChainConfig } from '../chains/chain-config.js';
import type { ChainRegistry } from './chain-selector.js';
import type { CursorCodec } from './cursor.js';
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
}

/** What every route needs: the store, the served chains, the cursor codec and readiness. */
export interface ApiContext {
  db: ReadDb;
  registry: ChainRegistry<ChainConfig>;
  cursors: CursorCodec;
  statusSource: StatusSource;
  /** Pool size (USD) under which `low_liquidity` is true when the pricing row has no flag. */
  lowLiquidityUsd: number;
  /** Pool size (USD) under which `exclude_spam_tokens` drops a token. */
  spamPoolUsd: number;
  pricing?: PricingLookups | undefined;
  /** Reuse of serialized responses until the store changes; absent: off. */
  caching?: ResponseCaching | undefined;
}

/** This server's supported-chains URL, for UNSUPPORTED_CHAIN_IDS warnings. */
export function supportedChainsUrl(request: { protocol: string; host: string }): string {
  return `${request.protocol}://${request.host}/v1/evm/supported-chains`;
}
