import type { ChainConfig } from '../chains/chain-config.js';
import { DEVNET_CHAIN_ID } from '../chains/known-chains.js';
import { resolveChainConfig } from '../chains/load-chain-configs.js';
import type { DevnetManifest } from './manifest.js';

/**
 * The ChainConfig of a deployed devnet: the registry's 31337 entry with the manifest's
 * stablecoin, WETH, Multicall3 and Uniswap factories (identical on a fresh chain).
 *
 * @example
 * const chain = devnetChainConfig(manifest, anvil.rpcUrl);
 */
export function devnetChainConfig(manifest: DevnetManifest, rpcUrl?: string): ChainConfig {
  const chain = resolveChainConfig(manifest.chainId, {
    ...(manifest.chainId === DEVNET_CHAIN_ID
      ? {}
      : { name: 'devnet', tags: ['default', 'devnet'] }),
    startBlock: 0n,
    stablecoins: [manifest.tokens.usdc.address],
    wrappedNative: manifest.tokens.weth.address,
    multicall3: manifest.contracts.multicall3,
    uniswapV2Factories: [manifest.contracts.uniswapV2Factory],
    uniswapV3Factories: [manifest.contracts.uniswapV3Factory],
  });
  if (rpcUrl) chain.rpcUrl = rpcUrl;
  return chain;
}
