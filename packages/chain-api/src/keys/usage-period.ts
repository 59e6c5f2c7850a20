import type { UsagePeriod, UsageSlotRow } from '../store/api/api-key-usage.js';

/** A key's counter for the period that contains a moment: UTC day or calendar month. */
export interface UsageSlot extends UsageSlotRow {
  /** Exclusive end: the next period's start. */
  periodEnd: Date;
}

/**
 * Start (inclusive) and end (exclusive) of the UTC day or month containing `at`.
 *
 * @example
 * periodBounds('month', new Date('2026-11-27T16:00:00Z'));
 * // { start: 2026-11-01T00:00:00Z, end: 2026-12-01T00:00:00Z }
 */
export function periodBounds(period: UsagePeriod, at: Date): { start: Date; end: Date } {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  if (period === 'month') {
    return { start: new Date(Date.UTC(y, m, 1)), end: new Date(Date.UTC(y, m + 1, 1)) };
  }
  const d = at.getUTCDate();
  return { start: new Date(Date.UTC(y, m, d)), end: new Date(Date.UTC(y, m, d + 1)) };
}

/** The counter of `keyId` for the period containing `at`. */
export function usageSlot(keyId: string, period: UsagePeriod, at: Date): UsageSlot {
  const { start, end } = periodBounds(period, at);
  return { keyId, period, periodStart: start, periodEnd: end };
}

/** Same counter (key, period kind and start)? */
export function sameSlot(a: UsageSlotRow, b: UsageSlotRow): boolean {
  return (
    a.keyId === b.keyId &&
    a.period === b.period &&
    a.periodStart.getTime() === b.periodStart.getTime()
  );
}
