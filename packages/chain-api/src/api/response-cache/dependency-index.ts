import type { Dep, Invalidation } from './cache-deps.js';

/**
 * Which cached entries depend on what: group → key → entry → history bound. An invalidation
 * finds its entries by looking up its keys, so dropping 1,000 wallets' answers costs 1,000
 * lookups whatever the cache holds.
 *
 * @example
 * index.add('url', walletDeps(wallet, [1]));
 * for (const key of index.matching(inv)) drop(key);
 */
export class DependencyIndex {
  readonly #groups = new Map<string, Map<string, Map<string, number>>>();

  add(entry: string, deps: readonly Dep[]): void {
    for (const d of deps) {
      let keys = this.#groups.get(d.group);
      if (!keys) {
        keys = new Map();
        this.#groups.set(d.group, keys);
      }
      let entries = keys.get(d.key);
      if (!entries) {
        entries = new Map();
        keys.set(d.key, entries);
      }
      entries.set(entry, Math.max(entries.get(entry) ?? Number.NEGATIVE_INFINITY, d.bound));
    }
  }

  remove(entry: string, deps: readonly Dep[]): void {
    for (const d of deps) {
      const keys = this.#groups.get(d.group);
      const entries = keys?.get(d.key);
      if (!keys || !entries) continue;
      entries.delete(entry);
      if (entries.size === 0) keys.delete(d.key);
      if (keys.size === 0) this.#groups.delete(d.group);
    }
  }

  /** Entries the invalidation drops. */
  matching(inv: Invalidation): Set<string> {
    const out = new Set<string>();
    for (const [group, sel] of inv.groups) {
      const keys = this.#groups.get(group);
      if (!keys) continue;
      const lists =
        sel.keys === 'all'
          ? [...keys.values()]
          : [...sel.keys].flatMap((key) => keys.get(key) ?? []);
      for (const entries of lists) {
        for (const [entry, bound] of entries) if (bound >= sel.since) out.add(entry);
      }
    }
    return out;
  }

  clear(): void {
    this.#groups.clear();
  }
}
