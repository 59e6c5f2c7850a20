export type { Address, ChainConfig, TokenInfo } from './chain-config.js';
export { type ChainOverride, parseChainsFile } from './chains-file.js';
export { ChainConfigError } from './errors.js';
export { DEVNET_CHAIN_ID, getKnownChain, knownChains, MULTICALL3_ADDRESS } from './known-chains.js';
export { loadChainConfigs, redactRpcUrl, resolveChainConfig } from './load-chain-configs.js';
