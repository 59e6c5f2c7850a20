import { BaseError } from './base-error.js';

/**
 * An unusable configuration: an environment variable or an entry of CHAINS_FILE. The message
 * names the variable (or the place in the file); `source` holds that name alone.
 */
export class ConfigError extends BaseError<'CONFIG_INVALID'> {
  override name = 'ConfigError';
  /** The variable or file place at fault, e.g. `PORT` or `CHAINS_FILE chains[2].rpc_url`. */
  readonly source: string;

  constructor(source: string, message: string) {
    super(message, { code: 'CONFIG_INVALID' });
    this.source = source;
  }
}
