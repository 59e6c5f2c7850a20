import type { NftSale } from './nft-sales.js';

export type ActivityType =
  | 'send'
  | 'receive'
  | 'mint'
  | 'burn'
  | 'approve'
  | 'swap'
  | 'call'
  | 'transfer';
export type AssetType = 'native' | 'erc20' | 'erc721' | 'erc1155';

/** One row of the `activity` table. */
export interface ActivityRow {
  wallet: string;
  blockNumber: bigint;
  blockTime: Date;
  txIndex: number;
  logIndex: number;
  subIndex: number;
  txHash: string;
  type: ActivityType;
  assetType: AssetType | null;
  tokenAddress: string | null;
  from: string | null;
  to: string | null;
  value: bigint | null;
  tokenId: bigint | null;
  extra: Record<string, unknown> | null;
}

export interface BlockRow {
  number: bigint;
  hash: string;
  parentHash: string;
  time: Date;
  txCount: number;
}

export interface TxRow {
  blockNumber: bigint;
  txIndex: number;
  hash: string;
  from: string;
  to: string | null;
  contractAddress: string | null;
  value: bigint;
  selector: string | null;
  input: string;
  status: number;
  gasUsed: bigint;
  effectiveGasPrice: bigint | null;
}

export interface LogRow {
  blockNumber: bigint;
  txIndex: number;
  logIndex: number;
  address: string;
  topics: readonly string[];
  data: string;
  /** Turned into typed rows (activity, pools, ...) by the decoder. */
  decoded: boolean;
}

/** A pool-affecting event, applied in order against the known pools by the sequential stage. */
export type PoolEvent =
  | {
      kind: 'created';
      dex: 'uniswap_v2' | 'uniswap_v3';
      factory: string;
      pool: string;
      token0: string;
      token1: string;
      fee: number | null;
      tickSpacing: number | null;
      block: bigint;
    }
  | { kind: 'sync'; pool: string; reserve0: bigint; reserve1: bigint; block: bigint; time: Date }
  | {
      kind: 'v3_state';
      pool: string;
      sqrtPriceX96: bigint;
      tick: number;
      liquidity: bigint | null;
      block: bigint;
      time: Date;
    }
  | {
      kind: 'v3_liquidity';
      pool: string;
      tickLower: number;
      tickUpper: number;
      delta: bigint;
      block: bigint;
      time: Date;
    };

/** Final ERC721 owner of a token id at the end of the batch. */
export interface Nft721Move {
  contract: string;
  tokenId: bigint;
  /** Final owner, or null when burned. */
  owner: string | null;
  time: Date;
  block: bigint;
}

export interface Nft1155Delta {
  wallet: string;
  contract: string;
  tokenId: bigint;
  delta: bigint;
  /** Time/block of the latest incoming transfer in the batch, if any. */
  acquired: { time: Date; block: bigint } | null;
  block: bigint;
  /** Balance read at the batch's last block (pairs first seen after a non-zero start block). */
  absolute?: bigint;
}

/** A Deposit/Withdrawal of a contract the registry does not name as wrapped native. */
export interface WrapperMove {
  token: string;
  wallet: string;
  /** +wad for Deposit (a mint), -wad for Withdrawal (a burn). */
  delta: bigint;
  block: bigint;
  time: Date;
  /** Its mint/burn activity row (already in `activity`; dropped if the contract is no ERC20). */
  row: ActivityRow | null;
}

/** Everything one block range turns into, ready to write in one transaction. */
export interface DerivedBatch {
  fromBlock: bigint;
  toBlock: bigint;
  blocks: BlockRow[];
  txs: TxRow[];
  logs: LogRow[];
  activity: ActivityRow[];
  /** key `${wallet}|${token}` */
  erc20Deltas: Map<
    string,
    {
      wallet: string;
      token: string;
      delta: bigint;
      block: bigint;
      /** Balance read at `toBlock` for a pair first seen after a non-zero start block. */
      absolute?: bigint;
      /** Time of the pair's first receipt in this batch (token-holders `first_acquired`). */
      acquired?: Date;
      /** The wallet moved some of this token out (token-holders `has_initiated_transfer`). */
      sent?: boolean;
    }
  >;
  /** Addresses whose native balance may have changed. */
  nativeTouched: Set<string>;
  /** key `${contract}|${tokenId}` */
  nft721: Map<string, Nft721Move>;
  /** key `${wallet}|${contract}|${tokenId}` */
  nft1155: Map<string, Nft1155Delta>;
  /** Token contracts seen, with the standard their events suggest and first block. */
  tokens: Map<string, { hint: 'erc20' | 'erc721' | 'erc1155' | 'unknown'; firstBlock: bigint }>;
  /** NFTs seen (metadata to fetch). key `${contract}|${tokenId}` */
  nfts: Map<string, { contract: string; tokenId: bigint; standard: 'erc721' | 'erc1155' }>;
  /** ERC-4906 refresh requests. */
  metadataRefresh: { contract: string; fromTokenId: bigint; toTokenId: bigint; block: bigint }[];
  poolEvents: PoolEvent[];
  sales: NftSale[];
  /** WETH9-clone candidates, resolved once token standards are known (src/reconcile). */
  wrapperMoves: WrapperMove[];
  /** Decoded events (logs that matched an indexed event) + native value movements. */
  eventCount: number;
}
