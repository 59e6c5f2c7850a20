export {
  defaultWalletsOptions,
  type WalletsOptions,
  walletsOptionsFromEnv,
} from '../config/wallets-config.js';
