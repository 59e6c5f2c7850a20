/** A lower-case 0x-prefixed 20-byte hex address. */
export type Address = `0x${string}`;

/** Display metadata of one token (CHAINS_FILE `tokens`; used for `metadata=logo,url`). */
export interface TokenInfo {
  address: Address;
  logo?: string;
  url?: string;
}

/**
 * Everything the indexer, the pricing worker and the API need to know about one chain.
 * Addresses are always lower-case.
 */
export interface ChainConfig {
  chainId: number;
  /** API name as used by the peer (`ethereum`, `base`, ...): lower-case letters, digits, `_`. */
  name: string;
  /** `default`, `mainnet`, `testnet`, `devnet`, ...; `chain_ids=<tag>` selects every chain carrying it. */
  tags: string[];
  nativeSymbol: string;
  nativeName: string;
  nativeDecimals: number;
  /** JSON-RPC endpoint (http(s) or ws(s)); may embed an API key, so never log it unredacted. */
  rpcUrl?: string;
  /** First block to index. */
  startBlock: bigint;
  /** Blocks behind the head after which a block is treated as final (no reorg handling). */
  finalityDepth: number;
  /** Tokens priced at 1 USD (pricing anchors). */
  stablecoins: Address[];
  wrappedNative?: Address;
  multicall3?: Address;
  uniswapV2Factories: Address[];
  uniswapV3Factories: Address[];
  explorerUrl?: string;
  logoUrl?: string;
  /**
   * What to do when the node serves another chain than the store holds (new genesis, or a fork
   * below the stored window): `stop` (default) halts this chain with an error naming
   * `sluice-chain reset <chainId>`; `reindex` deletes the chain's indexed data and starts over.
   */
  onReplaced?: 'stop' | 'reindex';
  /** Logo of the native asset (`metadata=logo` on native balances); the registry sets it. */
  nativeLogoUrl?: string;
  /**
   * Re-read every holder of a token that does not conserve balances (rebasing, reflection,
   * wrapper clones) every this many blocks while following the head. Default 1 (every batch).
   */
  reconcileEveryBlocks?: number;
  /**
   * `full` (default) indexes every block's rows; `wallets` follows the head keeping only rows of
   * tracked wallets (plus pools) and backfills a wallet's history when first asked (src/wallets).
   */
  mode?: 'full' | 'wallets';
  /** Per-token logo/url overrides from CHAINS_FILE. */
  tokens?: TokenInfo[];
}
