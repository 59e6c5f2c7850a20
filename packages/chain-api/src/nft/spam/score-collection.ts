import { configuredOverride, isDenied, type SpamConfig } from './spam-config.js';
import { findUrlShortener, isContentAddressedUri, suspiciousTerms } from './text-signals.js';
import { marketSaturation, type SpamFeature, suspiciousWordPoints } from './weights.js';

/** What is known about a collection when it is scored. */
export interface CollectionSignals {
  chainId: number;
  contract: string;
  /** Days since the collection's first transfer; `null` when unknown (treated as established). */
  ageDays: number | null;
  sales: number;
  uniqueBuyers: number;
  uniqueSellers: number;
  /** Metadata URIs seen for the collection's tokens (a sample); empty when none is known yet. */
  tokenUris: readonly string[];
  /** Names, symbol, descriptions, attribute values: scanned for suspicious words. */
  texts: readonly string[];
  /** URLs of the documents (external_url, image): scanned for shorteners along with `texts`. */
  urls: readonly string[];
  /** Override stored in `nft_spam_overrides`, if any (the configured ones are looked up here). */
  storedOverride?: 'spam' | 'not_spam' | undefined;
}

/** One entry of the peer's `explanations` array. */
export interface SpamExplanation {
  feature: SpamFeature | 'manual_classification';
  value: number | boolean | string;
  feature_score: number;
  feature_weight: number;
}

/** A collection's score. */
export interface SpamScore {
  score: number;
  isSpam: boolean;
  explanations: SpamExplanation[];
}

/**
 * Scores a collection 0–100 as the weighted average of its feature scores (see `weights.ts` for
 * the rules). Every observed feature (`trade_volume`, `unique_buyers`, `unique_sellers`,
 * `externally_flagged`) is always explained, zeros included; the metadata features once their
 * input is known. Pure: same input, same output.
 *
 * @example
 * scoreCollection({ chainId: 1, contract, ageDays: 30, sales: 0, uniqueBuyers: 0, uniqueSellers: 0,
 *   tokenUris: ['https://x.example/1'], texts: ['Claim at bit.ly/x'], urls: [] }, spamConfig());
 */
export function scoreCollection(signals: CollectionSignals, config: SpamConfig): SpamScore {
  const explanations: SpamExplanation[] = [];
  const young = signals.ageDays !== null && signals.ageDays < config.youngCollectionDays;
  // A feature left out of a young collection's average is still explained, with weight 0.
  const weight = (feature: SpamFeature) =>
    young && config.youngExcluded.includes(feature) ? 0 : config.weights[feature];
  const push = (feature: SpamFeature, value: number | boolean, featureScore: number) => {
    explanations.push({
      feature,
      value,
      feature_score: Math.round(Math.min(100, Math.max(0, featureScore))),
      feature_weight: weight(feature),
    });
  };

  push('trade_volume', signals.sales, market(signals.sales, marketSaturation.trade_volume));
  push(
    'unique_buyers',
    signals.uniqueBuyers,
    market(signals.uniqueBuyers, marketSaturation.unique_buyers),
  );
  push(
    'unique_sellers',
    signals.uniqueSellers,
    market(signals.uniqueSellers, marketSaturation.unique_sellers),
  );
  const denied = isDenied(config, signals.chainId, signals.contract);
  push('externally_flagged', denied, denied ? 100 : 0);
  if (signals.tokenUris.length > 0) {
    const nonIpfs = signals.tokenUris.some((uri) => !isContentAddressedUri(uri));
    push('uri_non_ipfs', nonIpfs, nonIpfs ? 100 : 0);
  }
  const terms = suspiciousTerms(signals.texts);
  push('suspicious_words', terms.length, terms.length * suspiciousWordPoints);
  const shortener = findUrlShortener([...signals.texts, ...signals.urls]) !== undefined;
  push('url_shortener', shortener, shortener ? 100 : 0);

  const totalWeight = explanations.reduce((sum, e) => sum + e.feature_weight, 0);
  const weighted = explanations.reduce((sum, e) => sum + e.feature_weight * e.feature_score, 0);
  let score = totalWeight > 0 ? Math.round(weighted / totalWeight) : 0;
  if (denied) score = Math.max(score, Math.ceil(config.threshold));

  const override =
    configuredOverride(config, signals.chainId, signals.contract) ?? signals.storedOverride;
  if (override) {
    score = override === 'spam' ? 100 : 0;
    explanations.unshift({
      feature: 'manual_classification',
      value: override,
      feature_score: score,
      feature_weight: 1,
    });
  }
  return { score, isSpam: score >= config.threshold, explanations };
}

function market(count: number, saturation: number): number {
  if (count <= 0) return 100;
  return 100 * (1 - Math.min(1, Math.log1p(count) / Math.log1p(saturation)));
}
