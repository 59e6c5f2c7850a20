/** Invalid chain configuration (RPC_URL_<id>, CHAINS_FILE): the message names the bad input. */
export class ChainConfigError extends Error {
  override name = 'ChainConfigError';
  readonly code = 'CHAIN_CONFIG_INVALID';
  /** Where the problem is, e.g. `CHAINS_FILE chains[2].stablecoins[0]` or `RPC_URL_1`. */
  readonly source: string;

  constructor(source: string, message: string) {
    super(`${source}: ${message}`);
    this.source = source;
  }
}
