import type { Queryable } from '@sluice/db';
import type { ChainConfig } from '../chains/chain-config.js';
import type { ChainRegistry } from './chain-selector.js';
import type { CursorCodec } from './cursor.js';
import type { StatusSource } from './readiness.js';

/** What every route needs: the store, the served chains, the cursor codec and readiness. */
export interface ApiContext {
  db: Queryable;
  registry: ChainRegistry<ChainConfig>;
  cursors: CursorCodec;
  statusSource: StatusSource;
  /** Pool size (USD) under which `low_liquidity` is true when the pricing row has no flag. */
  lowLiquidityUsd: number;
  /** Pool size (USD) under which `exclude_spam_tokens` drops a token. */
  spamPoolUsd: number;
}

/** This server's supported-chains URL, for UNSUPPORTED_CHAIN_IDS warnings. */
export function supportedChainsUrl(request: { protocol: string; host: string }): string {
  return `${request.protocol}://${request.host}/v1/evm/supported-chains`;
}
