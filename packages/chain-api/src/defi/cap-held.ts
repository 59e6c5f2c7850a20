import type { HeldContract } from './wallet-positions.js';

/** A wallet's held contracts cut to a budget of reads, and how many reads were left out. */
export interface CappedHoldings {
  kept: HeldContract[];
  /** Contracts and NFT ids left out (0: nothing was). */
  left: number;
}

/**
 * The held contracts a positions request reads, within `max` units (one per contract, one per
 * NFT id: a v3 position costs two node calls per id). Contracts already known to be positions
 * come first, then unprobed ones; contracts known not to be positions cost nothing (no call).
 * A wallet stuffed with fake position NFTs or LP tokens thus costs at most `max` units of calls.
 *
 * @example
 * const { kept, left } = capHeld(held, 200);
 */
export function capHeld(held: readonly HeldContract[], max: number): CappedHoldings {
  const rank = (h: HeldContract) => (!h.probed ? 1 : h.result === null ? 2 : 0);
  const ranked = [...held].sort((a, b) => rank(a) - rank(b));
  const kept: HeldContract[] = [];
  let budget = max;
  let left = 0;
  for (const h of ranked) {
    if (rank(h) === 2) {
      kept.push(h);
      continue;
    }
    const cost = h.standard === 'erc721' ? Math.max(1, h.tokenIds.length) : 1;
    if (cost <= budget) {
      kept.push(h);
      budget -= cost;
    } else if (h.standard === 'erc721' && budget > 0) {
      kept.push({ ...h, tokenIds: h.tokenIds.slice(0, budget) });
      left += cost - budget;
      budget = 0;
    } else left += cost;
  }
  return { kept, left };
}
