/**
 * Protocol names of detected positions. Detection is by interface (any fork answers the same
 * calls); the label comes from the contract's own ERC20/721 name where a known fork sets one,
 * else the family's reference implementation.
 */

const V2_BY_NAME: ReadonlyMap<string, string> = new Map([
  ['uniswap v2', 'UniswapV2'],
  ['sushiswap lp token', 'SushiSwapV2'],
  ['pancake lps', 'PancakeSwapV2'],
]);

const V3_BY_NAME_PREFIX: readonly [string, string][] = [
  ['uniswap v3', 'UniswapV3'],
  ['pancake v3', 'PancakeSwapV3'],
  ['sushiswap v3', 'SushiSwapV3'],
];

/** The peer's protocol families this server detects, with the labels each can carry. */
export const DEFI_FAMILIES: readonly { family: string; subProtocols: readonly string[] }[] = [
  { family: 'uniswap_v2', subProtocols: [...new Set(V2_BY_NAME.values())] },
  { family: 'uniswap_v3', subProtocols: V3_BY_NAME_PREFIX.map(([, label]) => label) },
  { family: 'erc4626', subProtocols: [] },
];

/**
 * Label of a v2-style pair from its ERC20 name.
 *
 * @example
 * v2ProtocolLabel('SushiSwap LP Token') // 'SushiSwapV2'
 */
export function v2ProtocolLabel(pairName: string | null): string {
  return V2_BY_NAME.get(pairName?.trim().toLowerCase() ?? '') ?? 'UniswapV2';
}

/**
 * Label of a v3-style position manager from its ERC721 name.
 *
 * @example
 * v3ProtocolLabel('Pancake V3 Positions NFT-V1') // 'PancakeSwapV3'
 */
export function v3ProtocolLabel(managerName: string | null): string {
  const name = managerName?.trim().toLowerCase() ?? '';
  return V3_BY_NAME_PREFIX.find(([prefix]) => name.startsWith(prefix))?.[1] ?? 'UniswapV3';
}
