import { parseAbi, toEventSelector } from 'viem';

/** Every event the indexer decodes, as a viem ABI (topic hashes are derived from it). */
export const indexedEventsAbi = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
  'event ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
  'event Deposit(address indexed dst, uint256 wad)',
  'event Withdrawal(address indexed src, uint256 wad)',
  'event PairCreated(address indexed token0, address indexed token1, address pair, uint256)',
  'event Sync(uint112 reserve0, uint112 reserve1)',
  'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
  'event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool)',
  'event Initialize(uint160 sqrtPriceX96, int24 tick)',
  'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
  'event Mint(address sender, address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)',
  'event Burn(address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)',
  'event MetadataUpdate(uint256 _tokenId)',
  'event BatchMetadataUpdate(uint256 _fromTokenId, uint256 _toTokenId)',
]);

const sel = (signature: string) => toEventSelector(signature);

/** topic0 of each decoded event. */
export const TOPIC = {
  transfer: sel('Transfer(address,address,uint256)'),
  approval: sel('Approval(address,address,uint256)'),
  approvalForAll: sel('ApprovalForAll(address,address,bool)'),
  transferSingle: sel('TransferSingle(address,address,address,uint256,uint256)'),
  transferBatch: sel('TransferBatch(address,address,address,uint256[],uint256[])'),
  deposit: sel('Deposit(address,uint256)'),
  withdrawal: sel('Withdrawal(address,uint256)'),
  pairCreated: sel('PairCreated(address,address,address,uint256)'),
  sync: sel('Sync(uint112,uint112)'),
  v2Swap: sel('Swap(address,uint256,uint256,uint256,uint256,address)'),
  poolCreated: sel('PoolCreated(address,address,uint24,int24,address)'),
  v3Initialize: sel('Initialize(uint160,int24)'),
  v3Swap: sel('Swap(address,address,int256,int256,uint160,uint128,int24)'),
  v3Mint: sel('Mint(address,address,int24,int24,uint128,uint256,uint256)'),
  v3Burn: sel('Burn(address,int24,int24,uint128,uint256,uint256)'),
  metadataUpdate: sel('MetadataUpdate(uint256)'),
  batchMetadataUpdate: sel('BatchMetadataUpdate(uint256,uint256)'),
} as const;

/** All topic0 values the indexer cares about (for eth_getLogs topic filters). */
export const ALL_TOPICS: readonly string[] = Object.values(TOPIC);
