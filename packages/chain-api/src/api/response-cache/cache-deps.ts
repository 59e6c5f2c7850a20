import { balancePairKey, changeKey, type StoreChange } from '../../store/changes/store-change.js';

/**
 * What a cached answer was built from: a group (what kind of thing, on which chain) and a key in
 * it (an address's change key; '' for the group as a whole). `bound` is for price history: the
 * latest time the answer read history at, so a change from a later time leaves it alone.
 */
export interface Dep {
  group: string;
  key: string;
  bound: number;
}

const dep = (
  kind: string,
  chainId: number,
  key: string,
  bound = Number.POSITIVE_INFINITY,
): Dep => ({
  group: `${kind}:${chainId}`,
  key,
  bound,
});

/**
 * Dependencies of a wallet's answer on the given chains (balances, activity, collectibles,
 * transactions): the wallet there, and anything on the chain.
 *
 * @example
 * walletDeps('0xd8da…', [1, 8453]) // 4 deps
 */
export function walletDeps(wallet: string, chainIds: readonly number[]): Dep[] {
  const key = changeKey(wallet);
  return chainIds.flatMap((id) => [dep('*', id, ''), dep('w', id, key)]);
}

/**
 * Dependencies of a wallet's NFT holdings answer (collectibles): changes naming the wallet's
 * holdings, not its fungible balances or activity.
 *
 * @example
 * nftWalletDeps('0xd8da…', [1]) // 2 deps
 */
export function nftWalletDeps(wallet: string, chainIds: readonly number[]): Dep[] {
  const key = changeKey(wallet);
  return chainIds.flatMap((id) => [dep('*', id, ''), dep('wn', id, key)]);
}

/**
 * Dependencies of one wallet's balance of one token (`'native'` too) on a chain: changes naming
 * that balance, or any balance of the wallet when the writer did not say which, not the wallet's
 * activity or its other tokens.
 *
 * @example
 * walletTokenDeps('0xd8da…', 1, '0xa0b8…') // 3 deps
 */
export function walletTokenDeps(wallet: string, chainId: number, token: string): Dep[] {
  return [
    dep('*', chainId, ''),
    dep('wb', chainId, changeKey(wallet)),
    dep('b', chainId, balancePairKey(wallet, token)),
  ];
}

/** A token-keyed answer (token info, holders): the token's holders, supply or metadata. */
export function tokenDeps(chainId: number, token: string): Dep[] {
  return [dep('*', chainId, ''), dep('t', chainId, changeKey(token))];
}

/** An answer showing an NFT collection (its metadata, sales, name, spam verdict). */
export function collectionDep(chainId: number, contract: string): Dep {
  return dep('n', chainId, changeKey(contract));
}

/** An answer that hides spam collections: any verdict change on the chain. */
export function spamDep(chainId: number): Dep {
  return dep('S', chainId, '');
}

/** An answer showing a token's current price without applying it at response time. */
export function priceDep(chainId: number, token: string): Dep {
  return dep('p', chainId, changeKey(token));
}

/** An answer whose rows depend on prices (exclude_spam_tokens, exclude_unpriced): any price. */
export function anyPriceDep(chainId: number): Dep {
  return dep('P', chainId, '');
}

/** An answer that read a token's price history at times up to `until` (epoch seconds). */
export function historyDep(chainId: number, token: string, until: number): Dep {
  return dep('h', chainId, changeKey(token), until);
}

/**
 * An answer built from what no change names precisely (node reads at the head, series over all
 * prices): any change on the chain drops it, as every change did before scoped invalidation.
 */
export function anyChangeDep(chainId: number): Dep {
  return dep('A', chainId, '');
}

/**
 * A wallet's answer that also reads what no change names (node state at the head, all prices,
 * past blocks): the wallet's deps plus any change of its chains.
 *
 * @example
 * walletAndChainDeps('0xd8da…', [1]) // 3 deps
 */
export function walletAndChainDeps(wallet: string, chainIds: readonly number[]): Dep[] {
  return [...walletDeps(wallet, chainIds), ...chainIds.map(anyChangeDep)];
}

/** An answer over the chain's whole token list (search): any token, holder or price change. */
export function tokenListDeps(chainId: number): Dep[] {
  return [dep('*', chainId, ''), dep('T', chainId, '')];
}

interface Selection {
  keys: Set<string> | 'all';
  since: number;
}

/**
 * The cached answers one change drops: per group, some keys (or all), from a time (history).
 *
 * @example
 * const inv = invalidationOf(parseStoreChange(payload));
 * if (inv !== 'all' && inv.matches(entry.deps)) drop(entry);
 */
export class Invalidation {
  readonly groups = new Map<string, Selection>();

  add(group: string, keys: ReadonlySet<string> | 'all', since = Number.NEGATIVE_INFINITY): this {
    if (keys !== 'all' && keys.size === 0) return this;
    const current = this.groups.get(group);
    if (!current) {
      this.groups.set(group, { keys: keys === 'all' ? 'all' : new Set(keys), since });
      return this;
    }
    current.since = Math.min(current.since, since);
    if (keys === 'all') current.keys = 'all';
    else if (current.keys !== 'all') for (const key of keys) current.keys.add(key);
    return this;
  }

  get empty(): boolean {
    return this.groups.size === 0;
  }

  /** Whether an answer with these dependencies is dropped. */
  matches(deps: readonly Dep[]): boolean {
    for (const d of deps) {
      const sel = this.groups.get(d.group);
      if (sel && d.bound >= sel.since && (sel.keys === 'all' || sel.keys.has(d.key))) return true;
    }
    return false;
  }
}

const everything: ReadonlySet<string> | 'all' = 'all';

/**
 * Which cached answers a store change drops ('all': every one). Current prices are not among
 * them when the cache applies prices at response time: `priceDep`/`anyPriceDep` answers are
 * the ones that cannot be re-priced.
 *
 * @example
 * invalidationOf(parseStoreChange(payload)) // Invalidation { groups: Map { 'w:1' => … } }
 */
export function invalidationOf(change: StoreChange): Invalidation | 'all' {
  if (change.all) return 'all';
  const inv = new Invalidation();
  for (const c of change.chains) {
    const id = c.chainId;
    inv.add(`A:${id}`, everything);
    if (c.all) {
      inv.add(`*:${id}`, everything);
      continue;
    }
    inv.add(`w:${id}`, c.wallets);
    inv.add(`wn:${id}`, c.nftWallets);
    inv.add(`wb:${id}`, c.balanceWallets);
    inv.add(`b:${id}`, c.balancePairs);
    inv.add(`t:${id}`, c.tokens);
    inv.add(`n:${id}`, c.collections);
    const pricesMoved = c.allPrices || c.prices.size > 0;
    inv.add(`p:${id}`, c.allPrices ? everything : c.prices);
    if (pricesMoved) inv.add(`P:${id}`, everything);
    // Search ranks by pool size and counts holders.
    if (pricesMoved || c.tokens.size > 0) inv.add(`T:${id}`, everything);
    inv.add(`h:${id}`, c.allHistory ? everything : c.history, c.historySince);
    if (c.spam) inv.add(`S:${id}`, everything);
  }
  return inv;
}
