import type { Address, ChainConfig } from './chain-config.js';

/** Multicall3, deployed at the same address on almost every EVM chain (and on the devnet). */
export const MULTICALL3_ADDRESS: Address = '0xca11bde05977b3631167028862be2a173976ca11';
/** Chain id of the local anvil devnet. */
export const DEVNET_CHAIN_ID = 31337;

/** Per-chain DEX and token addresses (mixed case here; lower-cased when the registry is built). */
interface ChainAssets {
  stablecoins?: string[];
  wrappedNative?: string;
  multicall3?: string | null; // null = not at the canonical address
  uniswapV2Factories?: string[];
  uniswapV3Factories?: string[];
  finalityDepth?: number;
  explorerUrl?: string;
}

type Row = [chainId: number, name: string, tags: string, symbol: string, nativeName: string];

// Names, ids and tags exactly as the peer lists them (reference/sim-chains.tsv).
const ROWS: Row[] = [
  [1, 'ethereum', 'default,mainnet', 'ETH', 'Ether'],
  [10, 'optimism', 'default,mainnet', 'ETH', 'Ether'],
  [14, 'flare', 'mainnet', 'FLR', 'Flare'],
  [30, 'rootstock', 'mainnet', 'RBTC', 'Smart Bitcoin'],
  [56, 'bnb', 'default,mainnet', 'BNB', 'BNB'],
  [100, 'gnosis', 'default,mainnet', 'XDAI', 'xDAI'],
  [130, 'unichain', 'mainnet', 'ETH', 'Ether'],
  [137, 'polygon', 'default,mainnet', 'POL', 'POL'],
  [143, 'monad', 'mainnet', 'MON', 'Monad'],
  [146, 'sonic', 'mainnet', 'S', 'Sonic'],
  [166, 'omni', 'omni', 'OMNI', 'Omni'],
  [204, 'opbnb', 'mainnet', 'BNB', 'BNB'],
  [250, 'fantom', 'mainnet', 'FTM', 'Fantom'],
  [252, 'fraxtal', 'mainnet', 'FRAX', 'Frax'],
  [288, 'boba', 'mainnet', 'ETH', 'Ether'],
  [324, 'zksync', 'default,mainnet', 'ETH', 'Ether'],
  [360, 'shape', 'mainnet', 'ETH', 'Ether'],
  [480, 'world', 'mainnet', 'ETH', 'Ether'],
  [690, 'redstone', 'mainnet', 'ETH', 'Ether'],
  [988, 'stable', '', 'USDT0', 'USDT0'],
  [999, 'hyper_evm', 'default,mainnet', 'HYPE', 'Hyperliquid'],
  [1088, 'metis', '', 'METIS', 'Metis'],
  [1101, 'zkevm', 'mainnet', 'ETH', 'Ether'],
  [1111, 'wemix', '', 'WEMIX', 'WEMIX'],
  [1135, 'lisk', 'mainnet', 'ETH', 'Ether'],
  [1329, 'sei', 'mainnet', 'SEI', 'Sei'],
  [1868, 'soneium', 'mainnet', 'ETH', 'Ether'],
  [1923, 'swellchain', 'mainnet', 'ETH', 'Ether'],
  [2020, 'ronin', 'mainnet', 'RON', 'Ronin'],
  [2741, 'abstract', 'mainnet', 'ETH', 'Ether'],
  [3338, 'peaq', 'mainnet', 'PEAQ', 'peaq'],
  [4217, 'tempo_mainnet', '', 'USD', 'USD'],
  [5000, 'mantle', 'mainnet', 'MNT', 'Mantle'],
  [5330, 'superseed', 'mainnet', 'ETH', 'Ether'],
  [7560, 'cyber', 'mainnet', 'ETH', 'Ether'],
  [8217, 'kaia', 'mainnet', 'KAIA', 'Kaia'],
  [8333, 'b3', 'mainnet', 'ETH', 'Ether'],
  [8453, 'base', 'default,mainnet', 'ETH', 'Ether'],
  [9745, 'plasma', 'mainnet', 'XPL', 'Plasma'],
  [10143, 'monad_testnet', 'testnet', 'MON', 'Monad'],
  [33139, 'ape_chain', 'mainnet', 'APE', 'ApeCoin'],
  [34443, 'mode', 'mainnet', 'ETH', 'Ether'],
  [42161, 'arbitrum', 'default,mainnet', 'ETH', 'Ether'],
  [42170, 'arbitrum_nova', 'default,mainnet', 'ETH', 'Ether'],
  [42220, 'celo', 'default,mainnet', 'CELO', 'Celo'],
  [42431, 'tempo', '', 'USD', 'USD'],
  [43113, 'avalanche_fuji', 'testnet', 'AVAX', 'Avalanche'],
  [43114, 'avalanche_c', 'default,mainnet', 'AVAX', 'Avalanche'],
  [55244, 'superposition', 'mainnet', 'ETH', 'Ether'],
  [57073, 'ink', 'mainnet', 'ETH', 'Ether'],
  [59144, 'linea', 'mainnet', 'ETH', 'Ether'],
  [60808, 'bob', 'mainnet', 'ETH', 'Ether'],
  [80002, 'polygon_amoy', '', 'POL', 'POL'],
  [80094, 'berachain', 'mainnet', 'BERA', 'Berachain'],
  [81457, 'blast', 'default,mainnet', 'ETH', 'Ether'],
  [84532, 'base_sepolia', 'testnet', 'ETH', 'Ether'],
  [534352, 'scroll', 'mainnet', 'ETH', 'Ether'],
  [543210, 'zero_network', 'mainnet', 'ETH', 'Ether'],
  [660279, 'xai', 'mainnet', 'XAI', 'Xai'],
  [747474, 'katana', '', 'ETH', 'Ether'],
  [7777777, 'zora', 'default,mainnet', 'ETH', 'Ether'],
  [11155111, 'sepolia', 'testnet', 'ETH', 'Ether'],
  [21000000, 'corn', '', 'BTCN', 'Bitcorn'],
  [666666666, 'degen', 'mainnet', 'DEGEN', 'Degen'],
  [888888888, 'ancient8', 'mainnet', 'ETH', 'Ether'],
  [1380012617, 'rari', 'mainnet', 'ETH', 'Ether'],
  [DEVNET_CHAIN_ID, 'devnet', 'default,devnet', 'ETH', 'Ether'],
];

const OP_STACK_WETH = '0x4200000000000000000000000000000000000006';
const UNISWAP_V3_FACTORY = '0x1F98431c8aD98523631AE4a59f267346ea31F984';

// Well-known deployments (Uniswap docs, Circle/Tether/Maker token lists).
const ASSETS: Record<number, ChainAssets> = {
  1: {
    stablecoins: [
      '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', // USDC
      '0xdAC17F958D2ee523a2206206994597C13D831ec7', // USDT
      '0x6B175474E89094C44Da98b954EedeAC495271d0F', // DAI
    ],
    wrappedNative: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
    uniswapV2Factories: [
      '0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f', // Uniswap v2
      '0xC0AEe478e3658e2610c5F7A4A2E1777cE9e4f2Ac', // SushiSwap (v2 fork)
    ],
    uniswapV3Factories: [UNISWAP_V3_FACTORY],
    finalityDepth: 64,
    explorerUrl: 'https://etherscan.io',
  },
  10: {
    stablecoins: [
      '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85', // USDC
      '0x7F5c764cBc14f9669B88837ca1490cCa17c31607', // USDC.e
      '0x94b008aA00579c1307B0EF2c499aD98a8ce58e58', // USDT
      '0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1', // DAI
    ],
    wrappedNative: OP_STACK_WETH,
    uniswapV2Factories: ['0x0c3c1c532F1e39EdF36BE9Fe0bE1410313E074Bf'],
    uniswapV3Factories: [UNISWAP_V3_FACTORY],
    explorerUrl: 'https://optimistic.etherscan.io',
  },
  56: {
    stablecoins: [
      '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d', // USDC (18 decimals on BNB)
      '0x55d398326f99059fF775485246999027B3197955', // USDT (18 decimals on BNB)
      '0x1AF3F329e8BE154074D8769D1FFa4eE058B1DBc3', // DAI
    ],
    wrappedNative: '0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c', // WBNB
    uniswapV2Factories: [
      '0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6', // Uniswap v2
      '0xcA143Ce32Fe78f1f7019d7d551a6402fC5350c73', // PancakeSwap v2
    ],
    uniswapV3Factories: [
      '0xdB1d10011AD0Ff90774D0C6Bb92e5C5c8b4461F7', // Uniswap v3
      '0x0BFbCF9fa4f9C56B0F40a671Ad40E0805A091865', // PancakeSwap v3
    ],
    finalityDepth: 20,
    explorerUrl: 'https://bscscan.com',
  },
  100: {
    wrappedNative: '0xe91D153E0b41518A2Ce8Dd3D7944Fa863463a97d', // WXDAI
    explorerUrl: 'https://gnosisscan.io',
  },
  130: {
    wrappedNative: OP_STACK_WETH,
    uniswapV2Factories: ['0x1f98400000000000000000000000000000000002'],
    uniswapV3Factories: ['0x1f98400000000000000000000000000000000003'],
  },
  137: {
    stablecoins: [
      '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', // USDC
      '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174', // USDC.e
      '0xc2132D05D31c914a87C6611C10748AEb04B58e8F', // USDT
      '0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063', // DAI
    ],
    wrappedNative: '0x0d500B1d8E8eF31E21C99d1Db9A6444d3ADf1270', // WPOL
    uniswapV2Factories: [
      '0x9e5A52f57b3038F1B8EeE45F28b3C1967e22799C', // Uniswap v2
      '0x5757371414417b8C6CAad45bAeF941aBc7d3Ab32', // QuickSwap
    ],
    uniswapV3Factories: [UNISWAP_V3_FACTORY],
    finalityDepth: 128,
    explorerUrl: 'https://polygonscan.com',
  },
  324: {
    multicall3: '0xF9cda624FBC7e059355ce98a31693d299FACd963',
    explorerUrl: 'https://explorer.zksync.io',
  },
  2741: { multicall3: null },
  480: {
    wrappedNative: OP_STACK_WETH,
    uniswapV2Factories: ['0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f'],
  },
  8453: {
    stablecoins: [
      '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', // USDC
      '0xd9aAEc86B65D86f6A7B5B1b0c42FFA531710b6CA', // USDbC
      '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2', // USDT
      '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb', // DAI
    ],
    wrappedNative: OP_STACK_WETH,
    uniswapV2Factories: ['0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6'],
    uniswapV3Factories: ['0x33128a8fC17869897dcE68Ed026d694621f6FDfD'],
    explorerUrl: 'https://basescan.org',
  },
  42161: {
    stablecoins: [
      '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', // USDC
      '0xFF970A61A04b1cA14834A43f5dE4533eBDDB5CC8', // USDC.e
      '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9', // USDT
      '0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1', // DAI
    ],
    wrappedNative: '0x82aF49447D8a07e3bd95BD0d56f35241523fBab1',
    uniswapV2Factories: ['0xf1D7CC64Fb4452F05c498126312eBE29f30Fbcf9'],
    uniswapV3Factories: [UNISWAP_V3_FACTORY],
    explorerUrl: 'https://arbiscan.io',
  },
  42220: {
    uniswapV3Factories: ['0xAfE208a311B21f13EF87E33A90049fC17A7acDEc'],
    explorerUrl: 'https://celoscan.io',
  },
  43114: {
    stablecoins: [
      '0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E', // USDC
      '0x9702230A8Ea53601f5cD2dc00fDBc13d4dF4A8c7', // USDT
    ],
    wrappedNative: '0xB31f66AA3C1e785363F0875A1B74E27b85FD66c7', // WAVAX
    uniswapV2Factories: ['0x9e5A52f57b3038F1B8EeE45F28b3C1967e22799C'],
    uniswapV3Factories: ['0x740b1c1de25031C31FF4fC9A62f554A55cdC1baD'],
    explorerUrl: 'https://snowtrace.io',
  },
  81457: {
    stablecoins: ['0x4300000000000000000000000000000000000003'], // USDB
    wrappedNative: '0x4300000000000000000000000000000000000004',
    uniswapV2Factories: ['0x5C346464d33F90bABaf70dB6388507CC889C1070'],
  },
  84532: {
    stablecoins: ['0x036CbD53842c5426634e7929541eC2318f3dCF7e'], // USDC
    wrappedNative: OP_STACK_WETH,
    uniswapV3Factories: ['0x4752ba5DBc23f44D87826276BF6Fd6b1C372aD24'],
  },
  534352: {
    stablecoins: ['0x06eFdBFf2a14a7c8E15944D1F4A48F9F95F663A4'], // USDC
    wrappedNative: '0x5300000000000000000000000000000000000004',
  },
  59144: {
    stablecoins: ['0x176211869cA2b568f2A7D4EE941E073a821EE1ff'], // USDC
    wrappedNative: '0xe5D7C2a44FfDDf6b295A15c148167daaAf5Cf34f',
  },
  7777777: {
    wrappedNative: OP_STACK_WETH,
    uniswapV2Factories: ['0x0F797dC7efaEA995bB916f268D919d0a1950eE3C'],
  },
  11155111: {
    stablecoins: ['0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'], // USDC
    wrappedNative: '0xfFf9976782d46CC05630D1f6eBAb18b2324d6B14',
    uniswapV2Factories: ['0xF62c03E08ada871A0bEb309762E260a7a6a880E6'],
    uniswapV3Factories: ['0x0227628f3F023bb0B980b67D528571c95c6DaC1c'],
    explorerUrl: 'https://sepolia.etherscan.io',
  },
  // The devnet scenario deploys from anvil's first account on a fresh chain, so its addresses
  // are fixed (checked against the deployed manifest in src/devnet/scenario.test.ts).
  [DEVNET_CHAIN_ID]: {
    stablecoins: ['0x0165878a594ca255338adfa4d48449f69242eb8f'], // USDC (6 decimals)
    wrappedNative: '0x5fbdb2315678afecb367f032d93f642f64180aa3', // WETH9
    uniswapV2Factories: ['0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0'],
    uniswapV3Factories: ['0xdc64a140aa3e981100a9beca4e685f962f0cf6c9'],
  },
};

// Other OP-stack chains also have WETH at the predeploy address.
for (const id of [1868, 57073, 34443, 1135, 5330, 7560, 690, 360, 1923, 8333, 888888888]) {
  ASSETS[id] ??= { wrappedNative: OP_STACK_WETH };
}

/**
 * Native-asset logos by symbol, from Trust Wallet's public asset repository (stable paths used
 * by many wallets). Chains whose native asset is not listed here get none.
 */
const TRUST_WALLET = 'https://raw.githubusercontent.com/trustwallet/assets/master/blockchains';
const NATIVE_LOGOS: Record<string, string> = {
  ETH: `${TRUST_WALLET}/ethereum/info/logo.png`,
  BNB: `${TRUST_WALLET}/smartchain/info/logo.png`,
  POL: `${TRUST_WALLET}/polygon/info/logo.png`,
  XDAI: `${TRUST_WALLET}/xdai/info/logo.png`,
  AVAX: `${TRUST_WALLET}/avalanchec/info/logo.png`,
  FTM: `${TRUST_WALLET}/fantom/info/logo.png`,
  CELO: `${TRUST_WALLET}/celo/info/logo.png`,
  RON: `${TRUST_WALLET}/ronin/info/logo.png`,
  METIS: `${TRUST_WALLET}/metis/info/logo.png`,
};

const lower = (a: string): Address => a.toLowerCase() as Address;

function build([chainId, name, tags, symbol, nativeName]: Row): ChainConfig {
  const assets = ASSETS[chainId] ?? {};
  const config: ChainConfig = {
    chainId,
    name,
    tags: tags ? tags.split(',') : [],
    nativeSymbol: symbol,
    nativeName,
    nativeDecimals: 18,
    startBlock: 0n,
    finalityDepth: assets.finalityDepth ?? 64,
    stablecoins: (assets.stablecoins ?? []).map(lower),
    uniswapV2Factories: (assets.uniswapV2Factories ?? []).map(lower),
    uniswapV3Factories: (assets.uniswapV3Factories ?? []).map(lower),
  };
  if (assets.wrappedNative) config.wrappedNative = lower(assets.wrappedNative);
  if (assets.multicall3 !== null)
    config.multicall3 = lower(assets.multicall3 ?? MULTICALL3_ADDRESS);
  if (assets.explorerUrl) config.explorerUrl = assets.explorerUrl;
  const nativeLogo = NATIVE_LOGOS[symbol];
  if (nativeLogo) config.nativeLogoUrl = nativeLogo;
  return config;
}

function deepFreeze(config: ChainConfig): ChainConfig {
  Object.freeze(config.tags);
  Object.freeze(config.stablecoins);
  Object.freeze(config.uniswapV2Factories);
  Object.freeze(config.uniswapV3Factories);
  return Object.freeze(config);
}

/**
 * Built-in registry: every chain the peer lists (same names, ids and tags) plus the local
 * devnet (31337, tagged `default` and `devnet`). Entries are frozen; copy before changing.
 *
 * @example
 * knownChains.find((c) => c.name === 'base')?.stablecoins; // ['0x8335...', ...]
 */
export const knownChains: readonly ChainConfig[] = Object.freeze(ROWS.map(build).map(deepFreeze));

const byId = new Map(knownChains.map((c) => [c.chainId, c]));

/** The built-in entry for a chain id, if any. */
export function getKnownChain(chainId: number): ChainConfig | undefined {
  return byId.get(chainId);
}
