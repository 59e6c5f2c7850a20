import type { ChainConfig } from '../chains/chain-config.js';
import { DEVNET_CHAIN_ID } from '../chains/known-chains.js';
import { resolveChainConfig } from '../chains/load-chain-configs.js';
import type { DevnetManifest } from './manifest.js';
import { tokenLogoPath } from './token-logo.js';

/** The devnet's "token list": its real tokens get logos, its spam and broken tokens none. */
const LISTED = ['usdc', 'weth', 'slc', 'wbtc', 'ilq'] as const;

/**
 * The ChainConfig of a deployed devnet: the registry's 31337 entry with the manifest's
 * stablecoin, WETH, Multicall3 and Uniswap factories (identical on a fresh chain).
 *
 * With `metadataUrl` (the devnet metadata server), the native asset and the listed tokens get
 * logos served by that server (`metadata=logo`).
 *
 * @example
 * const chain = devnetChainConfig(manifest, anvil.rpcUrl, metadata.url);
 */
export function devnetChainConfig(
  manifest: DevnetManifest,
  rpcUrl?: string,
  metadataUrl?: string,
): ChainConfig {
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
  if (metadataUrl) {
    const base = metadataUrl.replace(/\/?$/, '/');
    chain.nativeLogoUrl = `${base}${tokenLogoPath(chain.nativeSymbol)}`;
    chain.tokens = [
      ...(chain.tokens ?? []),
      ...LISTED.map((name) => {
        const token = manifest.tokens[name];
        return { address: token.address, logo: `${base}${tokenLogoPath(token.symbol)}` };
      }),
    ];
  }
  return chain;
}
