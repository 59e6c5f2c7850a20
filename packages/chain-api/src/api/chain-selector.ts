import { ApiError, invalidParameter } from './errors.js';
import { type ParamSpec, quote, splitList } from './params/param-spec.js';

/** The part of a chain's configuration the selector needs (a `ChainConfig` fits). */
export interface SelectableChain {
  chainId: number;
  name: string;
  tags: readonly string[];
}

/** One `chain_ids` item, before it is matched against the served chains. */
export type ChainSelectorItem = { kind: 'id'; id: number } | { kind: 'tag'; tag: string };

export interface ApiWarning {
  code: string;
  message: string;
  chain_ids?: number[];
  docs_url?: string;
}

const tagPattern = /^[a-z][a-z0-9_-]*$/;
const idPattern = /^\d{1,16}$/;

/**
 * `chain_ids`: numeric ids and tags, one or comma-separated. Only the syntax is checked here;
 * `resolveChains` matches the items against the chains this deployment serves.
 */
export function chainIdsParam(required = false): ParamSpec<ChainSelectorItem[] | undefined> {
  return {
    schema: { type: 'string' },
    description:
      'Chain ids and/or tags, one value or comma-separated (e.g. `1`, `mainnet`, `1,8453,testnet`). Chain names are not accepted. ' +
      (required ? 'Exactly one chain.' : 'Omitted: chains tagged `default`.'),
    required,
    parse(raw, name) {
      if (raw === undefined || raw === '') {
        if (required) throw invalidParameter(name, 'required (one chain id)');
        return undefined;
      }
      return splitList(raw, name, 64).map((item): ChainSelectorItem => {
        if (idPattern.test(item)) {
          const id = Number(item);
          if (!Number.isSafeInteger(id) || id < 1) {
            throw invalidParameter(name, `${quote(item)} is not a valid chain id`);
          }
          return { kind: 'id', id };
        }
        const tag = item.toLowerCase();
        if (!tagPattern.test(tag)) {
          throw invalidParameter(name, `${quote(item)} is neither a chain id nor a tag`);
        }
        return { kind: 'tag', tag };
      });
    },
  };
}

export interface ResolveOptions {
  /** Plural noun for the warning text: "Activity", "Balances", "Collectibles". */
  resultNoun: string;
  /** Where the UNSUPPORTED_CHAIN_IDS warning points (this server's supported-chains URL). */
  docsUrl: string;
  paramName?: string;
}

export interface ChainResolution<C extends SelectableChain> {
  /** Served chains selected, in chain id order, without duplicates. */
  chains: C[];
  /** Present when some numeric ids are not served here. */
  warnings: ApiWarning[];
}

export interface ChainRegistry<C extends SelectableChain> {
  /** Chains this deployment serves. */
  served: readonly C[];
  /** Names that must be refused (served + well-known chains), lower-case, to give a precise 400. */
  knownNames: ReadonlyMap<string, number>;
  /** Tags anyone may use even if no served chain carries them (default, mainnet, testnet...). */
  knownTags: ReadonlySet<string>;
}

/** Builds the lookup tables used by `resolveChains`. */
export function createChainRegistry<C extends SelectableChain>(
  served: readonly C[],
  wellKnown: readonly SelectableChain[] = [],
): ChainRegistry<C> {
  const knownNames = new Map<string, number>();
  const knownTags = new Set<string>(['default', 'mainnet', 'testnet']);
  for (const chain of [...wellKnown, ...served]) {
    knownNames.set(chain.name.toLowerCase(), chain.chainId);
    for (const tag of chain.tags) knownTags.add(tag.toLowerCase());
  }
  return {
    served: [...served].sort((a, b) => a.chainId - b.chainId),
    knownNames,
    knownTags,
  };
}

/**
 * Matches parsed `chain_ids` items against the served chains: omitted means the `default` tag;
 * tags expand; ids not served become an UNSUPPORTED_CHAIN_IDS warning; names are a 400.
 *
 * @example
 * resolveChains(registry, [{ kind: 'id', id: 1 }, { kind: 'id', id: 9999 }], opts);
 * // { chains: [ethereum], warnings: [{ code: 'UNSUPPORTED_CHAIN_IDS', chain_ids: [9999], ... }] }
 */
export function resolveChains<C extends SelectableChain>(
  registry: ChainRegistry<C>,
  items: readonly ChainSelectorItem[] | undefined,
  opts: ResolveOptions,
): ChainResolution<C> {
  const paramName = opts.paramName ?? 'chain_ids';
  const selectors = items ?? [{ kind: 'tag', tag: 'default' } as const];
  const selected = new Set<number>();
  const unsupported: number[] = [];
  for (const item of selectors) {
    if (item.kind === 'id') {
      if (registry.served.some((chain) => chain.chainId === item.id)) selected.add(item.id);
      else if (!unsupported.includes(item.id)) unsupported.push(item.id);
      continue;
    }
    const tagged = registry.served.filter((chain) => chain.tags.includes(item.tag));
    if (tagged.length === 0 && !registry.knownTags.has(item.tag)) {
      const id = registry.knownNames.get(item.tag);
      throw invalidParameter(
        paramName,
        id === undefined
          ? `unknown tag ${quote(item.tag)}; use numeric chain ids or tags such as default, mainnet, testnet`
          : `chain names are not accepted (${quote(item.tag)}); use its chain id ${id} or a tag`,
      );
    }
    for (const chain of tagged) selected.add(chain.chainId);
  }
  const warnings: ApiWarning[] = [];
  if (unsupported.length > 0) {
    warnings.push({
      code: 'UNSUPPORTED_CHAIN_IDS',
      message: `Some requested chain_ids are not supported. ${opts.resultNoun} are returned only for supported chains.`,
      chain_ids: unsupported,
      docs_url: opts.docsUrl,
    });
  }
  return {
    chains: registry.served.filter((chain) => selected.has(chain.chainId)),
    warnings,
  };
}

/**
 * The single-token endpoint needs exactly one chain: one item that names one chain. A list, or a
 * tag that expands to several chains, is a 400.
 */
export function resolveSingleChain<C extends SelectableChain>(
  registry: ChainRegistry<C>,
  items: readonly ChainSelectorItem[] | undefined,
  opts: ResolveOptions,
): ChainResolution<C> {
  const paramName = opts.paramName ?? 'chain_ids';
  if (!items || items.length === 0) throw invalidParameter(paramName, 'required (one chain id)');
  if (items.length > 1) {
    throw invalidParameter(paramName, 'exactly one chain is expected on this endpoint');
  }
  const resolution = resolveChains(registry, items, opts);
  if (resolution.chains.length > 1) {
    throw invalidParameter(
      paramName,
      `the tag expands to ${resolution.chains.length} chains; exactly one chain is expected`,
    );
  }
  if (resolution.chains.length === 0 && resolution.warnings.length === 0) {
    throw invalidParameter(paramName, 'the tag matches no supported chain');
  }
  return resolution;
}

/** Raised by routes when a requested chain's index is not ready (backfilling, RPC down). */
export function chainNotReady(names: string[]): ApiError {
  return new ApiError(
    'NOT_READY',
    `Try again later: the index of ${names.join(', ')} is catching up with the chain.`,
  );
}

/**
 * Warning for list endpoints that still answer while a chain backfills or its node is down
 * (activity, collectibles): the results for those chains may be incomplete.
 */
export function chainsNotReadyWarning(
  chains: readonly SelectableChain[],
  noun: string,
): ApiWarning {
  return {
    code: 'CHAINS_NOT_READY',
    message: `${noun} for ${chains.map((c) => c.name).join(', ')} may be incomplete: the index is catching up with the chain.`,
    chain_ids: chains.map((c) => c.chainId),
  };
}
