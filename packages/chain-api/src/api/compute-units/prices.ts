import type { FastifyRequest } from 'fastify';
import type { ChainConfig } from '../../chains/chain-config.js';
import { type ChainRegistry, chainIdsParam, resolveChains } from '../chain-selector.js';

/** How a keyed endpoint is priced in compute units (CU). */
export type Price =
  /** The same for every request. */
  | { kind: 'fixed'; units: number }
  /** `factor` per chain processed after tag expansion (omitted `chain_ids`: the default tag). */
  | { kind: 'per-chain'; factor: number }
  /** One per distinct address in the JSON body's `addresses` (wallet tracking). */
  | { kind: 'per-address' };

const fixed = (units: number): Price => ({ kind: 'fixed', units });
const perChain = (factor: number): Price => ({ kind: 'per-chain', factor });

/**
 * The peer's prices (see docs/compute-units.md), by route. Filters and limits do not change a
 * price. Endpoints beyond the peer: portfolio is priced as DeFi positions (a past balance set
 * per day and chain), the DeFi protocol list as supported-chains, wallet tracking per address.
 */
export const routePrices: Readonly<Record<string, Price>> = {
  '/v1/evm/balances/:address': perChain(1),
  '/v1/evm/balances/:address/stablecoins': perChain(1),
  '/v1/evm/collectibles/:address': perChain(1),
  '/v1/evm/balances/:address/token/:token_address': fixed(1),
  '/v1/evm/defi/positions/:address': perChain(4),
  '/v1/evm/activity/:address': fixed(3),
  '/v1/evm/transactions/:address': fixed(1),
  '/v1/evm/token-info/:address': fixed(2),
  '/v1/evm/token-holders/:chain_id/:address': fixed(2),
  '/v1/evm/search/tokens': fixed(2),
  '/v1/evm/supported-chains': fixed(0),
  '/v1/evm/defi/supported-protocols': fixed(0),
  '/v1/evm/portfolio/:address': perChain(4),
  '/v1/evm/wallets/track': { kind: 'per-address' },
};

/** Managing webhook subscriptions is free (deliveries are what the peer bills). */
const freePrefixes = ['/beta/evm/subscriptions', '/v1/evm/subscriptions'];

/** The price of a route, or undefined when none is set (a server refuses to start then). */
export function priceOf(url: string): Price | undefined {
  const price = routePrices[url];
  if (price) return price;
  return freePrefixes.some((p) => url === p || url.startsWith(`${p}/`)) ? fixed(0) : undefined;
}

const chainIds = chainIdsParam();

/** Chains processed per `chain_ids` value (the served chains never change while serving). */
const chainCounts = new WeakMap<ChainRegistry<ChainConfig>, Map<string, number>>();

function chainCount(registry: ChainRegistry<ChainConfig>, raw: string | undefined): number {
  let counts = chainCounts.get(registry);
  if (!counts) {
    counts = new Map();
    chainCounts.set(registry, counts);
  }
  const known = counts.get(raw ?? '');
  if (known !== undefined) return known;
  let count = 0;
  try {
    const items = chainIds.parse(raw, 'chain_ids');
    count = resolveChains(registry, items, { resultNoun: '', docsUrl: '' }).chains.length;
  } catch {
    // Rejected by the route (a 400): costs nothing.
  }
  // Bounded: callers choose the strings.
  if (counts.size >= 1_000) counts.clear();
  counts.set(raw ?? '', count);
  return count;
}

/**
 * Compute units of one request. Parameters the route would reject price at 0: the route answers
 * the 400 and the request costs nothing.
 *
 * @example
 * requestUnits(priceOf('/v1/evm/defi/positions/:address')!, request, registry); // 8 for chain_ids=1,8453
 */
export function requestUnits(
  price: Price,
  request: Pick<FastifyRequest, 'query' | 'body'>,
  registry: ChainRegistry<ChainConfig>,
): number {
  if (price.kind === 'fixed') return price.units;
  if (price.kind === 'per-address') {
    const addresses = (request.body as { addresses?: unknown } | null | undefined)?.addresses;
    if (!Array.isArray(addresses)) return 0;
    // Distinct addresses, as the route tracks them (the same wallet twice is tracked once).
    return new Set(addresses.map((a) => (typeof a === 'string' ? a.toLowerCase() : a))).size;
  }
  const raw = (request.query as Record<string, unknown> | undefined)?.chain_ids;
  if (raw !== undefined && typeof raw !== 'string') return 0;
  return price.factor * chainCount(registry, raw);
}
