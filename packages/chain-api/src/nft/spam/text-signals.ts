import { suspiciousPatterns, urlShorteners } from './weights.js';

/**
 * The distinct suspicious terms (see `suspiciousPatterns`) found in the given texts.
 *
 * @example
 * suspiciousTerms(['Claim your reward at apes-gift.xyz']); // ['claim', 'reward', 'url']
 */
export function suspiciousTerms(texts: Iterable<string>): string[] {
  const found = new Set<string>();
  for (const text of texts) {
    for (const [term, pattern] of suspiciousPatterns) if (pattern.test(text)) found.add(term);
  }
  return suspiciousPatterns.map(([term]) => term).filter((term) => found.has(term));
}

const shortenerPattern = new RegExp(
  `(^|[^a-z0-9.-])(${urlShorteners.map((host) => host.replaceAll('.', '\\.')).join('|')})(/|\\b)`,
  'i',
);

/**
 * The first URL-shortener host mentioned in the texts (URLs or prose), if any.
 *
 * @example
 * findUrlShortener(['see https://bit.ly/3xyz']); // 'bit.ly'
 */
export function findUrlShortener(texts: Iterable<string>): string | undefined {
  for (const text of texts) {
    const match = shortenerPattern.exec(text);
    if (match?.[2]) return match[2].toLowerCase();
  }
  return undefined;
}

/** True for URIs that are content-addressed or on chain (IPFS, IPNS, Arweave, data:), i.e. immutable. */
export function isContentAddressedUri(uri: string): boolean {
  const value = uri.trim().toLowerCase();
  return (
    /^(ipfs|ipns|ar|data):/.test(value) ||
    /^\/?ipfs\//.test(value) ||
    /^(qm[1-9a-z]{44}|bafy[a-z2-7]+)/i.test(value) ||
    /^https?:\/\/[^/]+\/ipfs\//.test(value) ||
    /^https?:\/\/[^/]+\.ipfs\./.test(value) ||
    /^https?:\/\/(www\.)?arweave\.net\//.test(value)
  );
}
