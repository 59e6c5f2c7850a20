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
  /** Per-token logo/url overrides from CHAINS_FILE. */
  tokens?: TokenInfo[];
}
