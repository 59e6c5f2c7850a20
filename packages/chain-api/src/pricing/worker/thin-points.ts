import type { PricePoint } from '../price-point.js';

/** Which points compaction would remove anyway: old enough and final. */
export interface ThinningRule {
  /** Points with a time before this (ms) are "older than an hour". */
  cutoffMs: number;
  /** Points at or below this block can no longer be rolled back. */
  finalizedBlock: bigint;
  bucketMs: number;
}

/**
 * Drops, before they are written, the points history compaction would delete: among a step's
 * points that are old and final, only the last one per token and 5-minute bucket is kept. A
 * backfill of a busy pool then writes one point per 5 minutes instead of one per block. Recent
 * or unfinalized points are all kept. Order of the kept points is preserved.
 *
 * @example
 * thinPoints(points, { cutoffMs: Date.now() - 3_600_000, finalizedBlock: head - 64n, bucketMs: 300_000 })
 */
export function thinPoints(points: readonly PricePoint[], rule: ThinningRule): PricePoint[] {
  const eligible = (p: PricePoint) =>
    p.time.getTime() < rule.cutoffMs && p.blockNumber <= rule.finalizedBlock;
  const last = new Map<string, number>();
  points.forEach((p, i) => {
    if (!eligible(p)) return;
    const key = `${p.token}|${Math.floor(p.time.getTime() / rule.bucketMs)}`;
    const prev = last.get(key);
    const prevPoint = prev === undefined ? undefined : points[prev];
    if (
      prevPoint === undefined ||
      p.time.getTime() > prevPoint.time.getTime() ||
      (p.time.getTime() === prevPoint.time.getTime() && p.blockNumber > prevPoint.blockNumber)
    ) {
      last.set(key, i);
    }
  });
  const keep = new Set(last.values());
  return points.filter((p, i) => !eligible(p) || keep.has(i));
}
