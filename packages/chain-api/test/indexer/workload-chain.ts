import type { ChainConfig } from '../../src/chains/index.js';
import type { Workload } from './random-workload.js';

/** ChainConfig of an anvil chain running the random workload. */
export function workloadChain(
  rpcUrl: string,
  w: Workload,
  over: Partial<ChainConfig> = {},
): ChainConfig {
  return {
    chainId: 31337,
    name: 'devnet',
    tags: ['default', 'devnet'],
    nativeSymbol: 'ETH',
    nativeName: 'Ether',
    nativeDecimals: 18,
    rpcUrl,
    startBlock: 0n,
    finalityDepth: 5,
    stablecoins: [w.erc20[1] as `0x${string}`],
    wrappedNative: w.weth,
    multicall3: w.multicall3,
    uniswapV2Factories: [],
    uniswapV3Factories: [],
    ...over,
  };
}
