export {
  type AnvilInstance,
  findAnvilBinary,
  getFreePort,
  type StartAnvilOptions,
  startAnvil,
} from './anvil.js';
export {
  AnvilNotFoundError,
  AnvilStartError,
  ContractCompileError,
  DevnetError,
  ScenarioError,
} from './errors.js';
