import type { SelectorRegistry } from '../decode/index.js';
import type { PoolTokenPair } from './swap-legs.js';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** Chain facts derivation needs. */
export interface DeriveContext {
  chainId: number;
  wrappedNative?: string | undefined;
  v2Factories: ReadonlySet<string>;
  v3Factories: ReadonlySet<string>;
  registry: SelectorRegistry;
  /** Currencies NFT sales may be paid in (native, wrapped native, stablecoins). */
  paymentTokens: readonly string[];
  /** Whether `FetchedBlock.traces` is populated. */
  traces: boolean;
  /**
   * token0/token1 of a Swap emitter checked beforehand (null: not a pool). When set, only Swaps of
   * verified pools make swap rows; unset (pure tests), every Swap-shaped event counts.
   */
  poolTokens?: (address: string) => PoolTokenPair | null | undefined;
  /** Contracts verified as ERC721 whose Transfer carries no indexed arguments. */
  isErc721?: (address: string) => boolean;
}
