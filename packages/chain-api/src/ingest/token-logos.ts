import type { ChainConfig } from '../chains/index.js';
import { createTokenMetadataLookup } from '../pricing/token-metadata.js';
import type { LogoOf } from '../store/subscriptions/webhook-watch.js';

const lookups = new WeakMap<ChainConfig, LogoOf>();

/**
 * The chain's token logos as the read endpoints show them (bundled token list, the chain's own
 * `tokens`, the registry's native logo), built once per chain config.
 *
 * @example
 * const logo = tokenLogos(chain)('native');
 */
export function tokenLogos(chain: ChainConfig): LogoOf {
  let logoOf = lookups.get(chain);
  if (!logoOf) {
    const lookup = createTokenMetadataLookup([chain]);
    logoOf = (token) => lookup.get(chain.chainId, token)?.logo;
    lookups.set(chain, logoOf);
  }
  return logoOf;
}
