import type { ManualClassification } from '../../config/nft-config.js';
import {
  defaultThreshold,
  defaultWeights,
  type SpamFeature,
  youngCollectionDays,
  youngExcludedFeatures,
} from './weights.js';

/** A manual decision about one contract (the type is the configuration's). */
export type { ManualClassification };

/** The spam model's configuration; defaults come from `weights.ts`. */
export interface SpamConfig {
  weights: Readonly<Record<SpamFeature, number>>;
  threshold: number;
  youngCollectionDays: number;
  /** Features left out for young collections. */
  youngExcluded: readonly SpamFeature[];
  /** Externally flagged contracts: `0xaddr` (every chain) or `chainId:0xaddr`, lower-case. */
  denyList: ReadonlySet<string>;
  /** Manual overrides by `chainId:0xaddr` or `0xaddr`; the `nft_spam_overrides` table adds more. */
  overrides: ReadonlyMap<string, ManualClassification>;
}

/**
 * Builds a complete configuration from partial input, validating weights (0..1) and the threshold
 * (0..100) and lower-casing list entries.
 *
 * @example
 * const config = spamConfig({ threshold: 60, denyList: ['1:0xabc...'] });
 */
export function spamConfig(
  input: {
    weights?: Partial<Record<SpamFeature, number>>;
    threshold?: number;
    youngCollectionDays?: number;
    youngExcluded?: readonly SpamFeature[];
    denyList?: Iterable<string>;
    overrides?: Iterable<readonly [string, ManualClassification]>;
  } = {},
): SpamConfig {
  const weights = { ...defaultWeights, ...input.weights };
  for (const [feature, weight] of Object.entries(weights)) {
    if (!(weight >= 0 && weight <= 1))
      throw new RangeError(`spam weight of ${feature} must be in 0..1`);
  }
  const threshold = input.threshold ?? defaultThreshold;
  if (!(threshold >= 0 && threshold <= 100))
    throw new RangeError('spam threshold must be in 0..100');
  const overrides = new Map<string, ManualClassification>();
  for (const [key, value] of input.overrides ?? []) overrides.set(listKey(key), value);
  return {
    weights,
    threshold,
    youngCollectionDays: input.youngCollectionDays ?? youngCollectionDays,
    youngExcluded: input.youngExcluded ?? youngExcludedFeatures,
    denyList: new Set([...(input.denyList ?? [])].map(listKey)),
    overrides,
  };
}

function listKey(entry: string): string {
  const value = entry.trim().toLowerCase();
  if (!/^(\d+:)?0x[0-9a-f]{40}$/.test(value)) {
    throw new RangeError(`not a contract (0xaddress or chainId:0xaddress): ${entry}`);
  }
  return value;
}

/** True when `(chainId, contract)` is on the deny list (chain-specific or any-chain entry). */
export function isDenied(config: SpamConfig, chainId: number, contract: string): boolean {
  const address = contract.toLowerCase();
  return config.denyList.has(`${chainId}:${address}`) || config.denyList.has(address);
}

/** The configured manual override of a contract, chain-specific first. */
export function configuredOverride(
  config: SpamConfig,
  chainId: number,
  contract: string,
): ManualClassification | undefined {
  const address = contract.toLowerCase();
  return config.overrides.get(`${chainId}:${address}`) ?? config.overrides.get(address);
}
