import { ConfigError } from '../errors/index.js';

/**
 * The one configuration error under the name chain configuration code has always thrown; the
 * message names the bad input (RPC_URL_<id>, CHAINS_FILE and the place in it).
 */
export { ConfigError as ChainConfigError };

/** A ConfigError of the chain configuration: `source: message`, `source` kept apart. */
export function chainConfigError(source: string, message: string): ConfigError {
  return new ConfigError(source, `${source}: ${message}`);
}
