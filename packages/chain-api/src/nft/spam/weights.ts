/**
 * The spam model's knobs, in one place. Everything here is data: the scoring code
 * (`score-collection.ts`) only reads it, so tuning the model means editing this file (or passing
 * overrides through `SpamConfig`), never the algorithm.
 *
 * How a collection is scored:
 * 1. Each feature that applies yields a feature score from 0 (looks legitimate) to 100 (looks like spam).
 * 2. `spam_score` = round(Σ weight·feature_score / Σ weight) over the explained features. A metadata
 *    feature is not explained while its input is unknown (no metadata fetched yet); the market
 *    features and `externally_flagged` always are. `youngExcludedFeatures` (the volume signal) count
 *    with weight 0 for collections younger than `youngCollectionDays`: a new collection has not
 *    had the time to trade.
 * 3. `is_spam` = spam_score >= `threshold`.
 * 4. `externally_flagged` (contract on the configured deny list) is decisive: the score of a flagged
 *    collection is raised to at least `threshold`.
 * 5. A manual override per contract (`nft_spam_overrides` table or `NFT_SPAM_OVERRIDES`) wins over
 *    everything: score 100 (`spam`) or 0 (`not_spam`), reported as the `manual_classification` feature.
 */

/** Features of the model, named as in the peer's `explanations[].feature`. */
export type SpamFeature =
  | 'trade_volume'
  | 'unique_buyers'
  | 'unique_sellers'
  | 'externally_flagged'
  | 'uri_non_ipfs'
  | 'suspicious_words'
  | 'url_shortener';

/**
 * Relative weight of each feature (0..1, summing to 1 when all apply). Calibrated so that no single
 * weak signal flags a collection: an old collection that never traded and hosts its metadata on
 * https scores 35 (plenty of legitimate ones do, POAP-like drops never trade); it takes scam wording
 * (two suspicious terms) or a link shortener on top of a dead market to cross 50. The deny list is
 * decisive on its own (rule 4 above), so its weight only shapes the reported average.
 */
export const defaultWeights: Readonly<Record<SpamFeature, number>> = {
  trade_volume: 0.15,
  unique_buyers: 0.1,
  unique_sellers: 0.05,
  externally_flagged: 0.15,
  uri_non_ipfs: 0.05,
  suspicious_words: 0.3,
  url_shortener: 0.2,
};

/** Score at or above which a collection is spam (hidden by `filter_spam=true`). */
export const defaultThreshold = 50;

/** Collections younger than this (first transfer seen) skip the market features. */
export const youngCollectionDays = 7;

/** The features computed from the collection's sales. */
export const marketFeatures: readonly SpamFeature[] = [
  'trade_volume',
  'unique_buyers',
  'unique_sellers',
];

/**
 * The market features left out for young collections: the volume signal only. A young collection
 * without a single buyer is still a weak spam signal (airdrops are sent, never bought).
 */
export const youngExcludedFeatures: readonly SpamFeature[] = ['trade_volume'];

/**
 * Market saturation points: at this many sales / distinct buyers / distinct sellers (or more) the
 * feature scores 0; with none it scores 100; in between it falls logarithmically (the first few
 * trades say the most): score = 100 · (1 − ln(1+n) / ln(1+saturation)).
 */
export const marketSaturation: Readonly<
  Record<'trade_volume' | 'unique_buyers' | 'unique_sellers', number>
> = {
  trade_volume: 50,
  unique_buyers: 20,
  unique_sellers: 20,
};

/** Each distinct suspicious term found adds this much to `suspicious_words` (capped at 100). */
export const suspiciousWordPoints = 40;

/**
 * Terms typical of scam airdrops ("claim your reward at ..."), matched case-insensitively on word
 * boundaries in collection and token names, symbols, descriptions and attribute values. The last
 * entry catches "visit <domain>" style URLs written into names and descriptions.
 */
export const suspiciousPatterns: ReadonlyArray<readonly [term: string, pattern: RegExp]> = [
  ['claim', /\bclaim(s|ed|ing|able)?\b/i],
  ['airdrop', /\bair\s?drop(s|ped)?\b/i],
  ['reward', /\brewards?\b/i],
  ['voucher', /\bvouchers?\b/i],
  ['giveaway', /\bgive\s?aways?\b/i],
  ['redeem', /\bredeem(able|ed)?\b/i],
  ['visit', /\bvisit\b/i],
  ['eligible', /\beligib(le|ility)\b/i],
  ['bonus', /\bbonus\b/i],
  ['free mint', /\bfree\s+(mint|nft|tokens?)\b/i],
  ['you won', /\b(you\s+(have\s+)?won|winner|congratulations)\b/i],
  ['connect wallet', /\bconnect\s+(your\s+)?wallet\b/i],
  [
    'cash amount',
    /(\$\s?\d[\d,.]*\s?(k|usd[ct]?)?\b|\b\d[\d,.]*\s?(usd[ct]?|eth)\s+(reward|prize|bonus|gift)\b)/i,
  ],
  [
    'url',
    /\b(https?:\/\/|www\.)\S+|\b[a-z0-9-]{2,}\.(com|io|xyz|net|org|app|site|online|top|club|live|me|gift|fun|pro|vip|claims?|events?|finance|org)\b/i,
  ],
];

/** Link shortener hosts: legitimate projects link their own domain, scams hide theirs. */
export const urlShorteners: readonly string[] = [
  'bit.ly',
  'bitly.com',
  'tinyurl.com',
  't.co',
  'goo.gl',
  'is.gd',
  'v.gd',
  'ow.ly',
  'buff.ly',
  'cutt.ly',
  'rb.gy',
  't.ly',
  'shorturl.at',
  'tiny.cc',
  'rebrand.ly',
  'bl.ink',
  's.id',
  'lnkd.in',
  'shorturl.asia',
  'clck.ru',
  'u.to',
];
