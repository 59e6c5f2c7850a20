/** The tokens a chain's prices are anchored to. Addresses lower-case. */
export interface PricingAnchors {
  /** Configured stablecoins, each exactly 1 USD. */
  stablecoins: ReadonlySet<string>;
  /** The wrapped native token, priced through its deepest stablecoin pool. */
  wrappedNative: string | undefined;
}

/**
 * Anchors from a chain's configuration.
 *
 * @example
 * anchorsOf({ stablecoins: ['0xa0b8...'], wrappedNative: '0xc02a...' })
 */
export function anchorsOf(chain: {
  stablecoins: readonly string[];
  wrappedNative?: string | undefined;
}): PricingAnchors {
  return {
    stablecoins: new Set(chain.stablecoins.map((a) => a.toLowerCase())),
    wrappedNative: chain.wrappedNative?.toLowerCase(),
  };
}

/** True when the token can be the counter side of a pricing hop (a stablecoin or wrapped native). */
export function isQuoteToken(anchors: PricingAnchors, token: string): boolean {
  return anchors.stablecoins.has(token) || anchors.wrappedNative === token;
}
