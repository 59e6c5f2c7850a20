export {
  DEVNET_MNEMONIC,
  DEVNET_USERS,
  DEVNET_WALLET_NAMES,
  DEVNET_WALLETS,
  type DevnetWalletName,
  devnetAccount,
} from './accounts.js';
export {
  type AnvilInstance,
  findAnvilBinary,
  getFreePort,
  type StartAnvilOptions,
  startAnvil,
} from './anvil.js';
export {
  CONTRACTS_DIR,
  type CompiledContract,
  type CompiledContracts,
  compileContracts,
} from './compile.js';
export { devnetChainConfig } from './devnet-chain.js';
export {
  AnvilNotFoundError,
  AnvilStartError,
  ContractCompileError,
  DevnetError,
  ScenarioError,
} from './errors.js';
export type {
  DevnetCollection,
  DevnetDefi,
  DevnetEvent,
  DevnetManifest,
  DevnetPool,
  DevnetSale,
  DevnetToken,
} from './manifest.js';
export {
  devnetNftMetadata,
  type MetadataResponse,
  type MetadataServer,
  startMetadataServer,
} from './metadata-server.js';
export {
  type DeployScenarioOptions,
  type DevnetLogger,
  deployScenario,
  SCENARIO_SPAN_DAYS,
} from './scenario.js';
export {
  createScenarioClient,
  type ScenarioClient,
  type ScenarioViemClient,
} from './scenario-client.js';
export { type Devnet, type StartDevnetOptions, startDevnet } from './start-devnet.js';
export { startTrickle, type Trickle, type TrickleOptions } from './trickle.js';
export { encodeSqrtPriceX96, fullRangeTicks, sqrtBigInt } from './v3-math.js';
