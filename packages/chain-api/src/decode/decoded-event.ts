/** A lower-case 0x address. */
export type Addr = `0x${string}`;

/** A raw receipt log, normalised (lower-case address, numeric indexes). */
export interface RawLog {
  address: Addr;
  topics: readonly string[];
  data: string;
  logIndex: number;
  txIndex: number;
}

/** The events the indexer derives rows from. `address` is the emitting contract. */
export type DecodedEvent =
  | { kind: 'erc20_transfer'; address: Addr; from: Addr; to: Addr; value: bigint }
  | { kind: 'erc721_transfer'; address: Addr; from: Addr; to: Addr; tokenId: bigint }
  | { kind: 'erc20_approval'; address: Addr; owner: Addr; spender: Addr; value: bigint }
  | { kind: 'erc721_approval'; address: Addr; owner: Addr; approved: Addr; tokenId: bigint }
  | { kind: 'approval_for_all'; address: Addr; owner: Addr; operator: Addr; approved: boolean }
  | {
      kind: 'erc1155_transfer';
      address: Addr;
      operator: Addr;
      from: Addr;
      to: Addr;
      ids: bigint[];
      values: bigint[];
      batch: boolean;
    }
  | { kind: 'weth_deposit'; address: Addr; dst: Addr; wad: bigint }
  | { kind: 'weth_withdrawal'; address: Addr; src: Addr; wad: bigint }
  | { kind: 'v2_pair_created'; address: Addr; token0: Addr; token1: Addr; pair: Addr }
  | { kind: 'v2_sync'; address: Addr; reserve0: bigint; reserve1: bigint }
  | {
      kind: 'v2_swap';
      address: Addr;
      sender: Addr;
      to: Addr;
      amount0In: bigint;
      amount1In: bigint;
      amount0Out: bigint;
      amount1Out: bigint;
    }
  | {
      kind: 'v3_pool_created';
      address: Addr;
      token0: Addr;
      token1: Addr;
      fee: number;
      tickSpacing: number;
      pool: Addr;
    }
  | { kind: 'v3_initialize'; address: Addr; sqrtPriceX96: bigint; tick: number }
  | {
      kind: 'v3_swap';
      address: Addr;
      sender: Addr;
      recipient: Addr;
      amount0: bigint;
      amount1: bigint;
      sqrtPriceX96: bigint;
      liquidity: bigint;
      tick: number;
    }
  | {
      kind: 'v3_liquidity';
      address: Addr;
      tickLower: number;
      tickUpper: number;
      /** Liquidity added (Mint, positive) or removed (Burn, negative). */
      delta: bigint;
    }
  | { kind: 'metadata_update'; address: Addr; fromTokenId: bigint; toTokenId: bigint };

export type DecodedEventKind = DecodedEvent['kind'];
