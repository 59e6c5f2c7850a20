import type { PriceAtRequest } from './context.js';

export interface PricingLookupOptions {
  /** Times newer than this are never memoized (a reorg could still change them); default 15 min. */
  settledAfterMs?: number;
  /** How long a memoized exact-time answer is reused; default 30 s. */
  memoTtlMs?: number;
  /** Memoized answers kept; default 100,000. */
  memoMaxEntries?: number;
  now?: () => number;
}

/**
 * `pricesAt` with a short memo of settled answers: the activity feed asks for the price at each
 * item's block time, and a page of old items asks the same questions on every request. Answers
 * for times older than `settledAfterMs` are reused for `memoTtlMs` (exact times, no rounding), so
 * a backfilled or compacted price history shows up within that TTL; recent times always query.
 */
export function memoizedPricesAt(
  lookup: (items: readonly PriceAtRequest[]) => Promise<(number | null)[]>,
  opts: PricingLookupOptions = {},
): (
  items: readonly PriceAtRequest[],
  /** Reads what the memo lacks in place of `lookup` (the same query through another view). */
  read?: (items: readonly PriceAtRequest[]) => Promise<(number | null)[]>,
) => Promise<(number | null)[]> {
  const settledAfterMs = opts.settledAfterMs ?? 15 * 60_000;
  const ttl = opts.memoTtlMs ?? 30_000;
  const maxEntries = opts.memoMaxEntries ?? 100_000;
  const now = opts.now ?? Date.now;
  const memo = new Map<string, { value: number | null; expires: number }>();

  return async (items, read = lookup) => {
    const at = now();
    const settled = at - settledAfterMs;
    const out: (number | null)[] = new Array(items.length).fill(null);
    const missing: PriceAtRequest[] = [];
    const missingAt: number[] = [];
    const missingKeys: (string | null)[] = [];
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const time = item.time.getTime();
      const key = time < settled ? `${item.chainId}:${item.token.toLowerCase()}:${time}` : null;
      const hit = key === null ? undefined : memo.get(key);
      if (hit && hit.expires > at) {
        out[i] = hit.value;
        continue;
      }
      missing.push(item);
      missingAt.push(i);
      missingKeys.push(key);
    }
    if (missing.length === 0) return out;
    const fresh = await read(missing);
    if (memo.size + missing.length > maxEntries) memo.clear();
    const expires = now() + ttl;
    for (let j = 0; j < missing.length; j++) {
      const value = fresh[j] ?? null;
      out[missingAt[j]!] = value;
      const key = missingKeys[j];
      // One call asking more than the memo holds must not grow it past its bound.
      if (key && memo.size < maxEntries) memo.set(key, { value, expires });
    }
    return out;
  };
}
