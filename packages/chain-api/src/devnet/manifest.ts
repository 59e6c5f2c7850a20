import type { Hex } from 'viem';
import type { Address } from '../chains/chain-config.js';
import type { DevnetWalletName } from './accounts.js';

/** An ERC20 of the scenario. `name`/`symbol` are what the contract reports (bytes32 decoded). */
export interface DevnetToken {
  address: Address;
  name: string;
  symbol: string;
  decimals: number;
}

export interface DevnetPool {
  address: Address;
  type: 'uniswap_v2' | 'uniswap_v3';
  token0: Address;
  token1: Address;
  /** v3 fee tier (hundredths of a bip), e.g. 3000. */
  fee?: number;
}

export interface DevnetCollection {
  address: Address;
  standard: 'erc721' | 'erc1155';
  name: string;
  symbol: string;
  /** How its metadata is served: local http server, on-chain `data:` URIs, broken, spam lure. */
  metadata: 'http' | 'data' | 'broken' | 'spam';
  /** Token URI pattern (`{id}`: decimal id for ERC721, 64-hex-digit id per ERC-1155). */
  uriTemplate: string;
}

/** Where something notable happened. */
export interface DevnetEvent {
  blockNumber: number;
  txHash: Hex;
  /** Block timestamp, unix seconds. */
  timestamp: number;
}

/** A paid NFT transfer: NFT(s) to the buyer and payment to the seller in the same transaction. */
export interface DevnetSale extends DevnetEvent {
  collection: Address;
  standard: 'erc721' | 'erc1155';
  tokenIds: string[];
  /** ERC1155 units per token id (1 for ERC721). */
  quantity: string;
  seller: Address;
  buyer: Address;
  /** `native` (wei) or the ERC20 paid with. */
  paymentToken: 'native' | Address;
  /** Total paid, smallest unit of the payment token. */
  totalPrice: string;
  /** totalPrice split evenly across the NFTs moved (per token id, per unit for ERC1155). */
  pricePerToken: string;
}

/** The scenario's DeFi positions (all held by alice). */
export interface DevnetDefi {
  /** Uniswap v3 NonfungiblePositionManager (v3-periphery's published build). */
  positionManager: Address;
  /** OpenZeppelin ERC-4626 vault on USDC. */
  vault: Address;
  /** The v2 pair alice holds LP tokens of. */
  v2Pair: Address;
  /** Alice's position NFTs: one around the price, one above it (out of range). */
  v3Positions: {
    tokenId: string;
    owner: Address;
    pool: Address;
    tickLower: number;
    tickUpper: number;
  }[];
}

/**
 * Everything {@link deployScenario} created, as plain JSON (bigints as decimal strings).
 * Addresses are lower-case.
 */
export interface DevnetManifest {
  chainId: number;
  /** Base URL the http collections point at (the server of startDevnet, or a placeholder). */
  metadataBaseUrl: string;
  /** First and last block the scenario produced, and their timestamps (unix seconds). */
  startBlock: number;
  endBlock: number;
  startTime: number;
  endTime: number;
  /** True when block times span ~10 days (anvil started with a backdated genesis). */
  timeline: boolean;
  wallets: Record<DevnetWalletName, Address>;
  /** Fresh addresses (no ETH) that only received the spam airdrops. */
  airdropRecipients: Address[];
  contracts: {
    weth: Address;
    /** Canonical Multicall3 address (code installed with anvil_setCode). */
    multicall3: Address;
    /** Where Multicall3 was deployed by a transaction. */
    multicall3Deployed: Address;
    uniswapV2Factory: Address;
    uniswapV2Router: Address;
    uniswapV3Factory: Address;
    v3Helper: Address;
    marketplace: Address;
  };
  tokens: {
    /** 6-decimal stablecoin (the devnet's USD anchor). */
    usdc: DevnetToken;
    weth: DevnetToken;
    /** 18 decimals, priced via SLC/WETH v2. */
    slc: DevnetToken;
    /** 8 decimals; deep v3 WBTC/WETH pool plus a shallow v2 pair at a different price. */
    wbtc: DevnetToken;
    /** Illiquid: only a ~2,000 USD ILQ/WETH pair. */
    ilq: DevnetToken;
    /** Manipulation case: SCAM/USDC pair holding 1 wei of SCAM against 5 USDC. */
    scam: DevnetToken;
    /** Airdropped spam token, no pool. */
    spam: DevnetToken;
    /** name()/symbol() return bytes32. */
    b32: DevnetToken;
    /** name()/symbol()/decimals() revert (reported here as name '', symbol '', decimals 18). */
    rvt: DevnetToken;
  };
  pools: {
    usdcWeth: DevnetPool;
    slcWeth: DevnetPool;
    wbtcWethV2: DevnetPool;
    wbtcWethV3: DevnetPool;
    ilqWeth: DevnetPool;
    scamUsdc: DevnetPool;
  };
  nfts: {
    /** ERC721 with http metadata from the local server; ERC-4906 events; paid sales. */
    punks: DevnetCollection;
    /** ERC721 with on-chain data: URIs. */
    shapes: DevnetCollection;
    /** ERC721 whose metadata URLs return broken JSON, 404 or 500. */
    broken: DevnetCollection;
    /** ERC721 airdropped spam with lure metadata. */
    spam: DevnetCollection;
    /** ERC1155 items. */
    items: DevnetCollection;
  };
  sales: DevnetSale[];
  defi: DevnetDefi;
  /** Notable transactions by name (see docs/devnet.md). */
  events: Record<string, DevnetEvent>;
}
