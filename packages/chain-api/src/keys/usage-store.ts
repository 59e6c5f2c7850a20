import type { Queryable } from '@sluice/db';
import {
  addUsageTotals,
  readKeyUsage,
  readUsageTotals,
  releaseKeyUsage,
  reserveKeyUsage,
  type UsageTotalsRow,
} from '../store/api/api-key-usage.js';
import { periodBounds, type UsageSlot } from './usage-period.js';

export type UsageTotals = UsageTotalsRow;

/**
 * Where compute units are counted, shared by every API process: Redis when configured, else the
 * database. Every operation is one atomic step on the shared counter.
 */
export interface UsageStore {
  /**
   * Adds `amount` to the slot unless the total would pass `quota` (null: unlimited). `used` is
   * the total after (granted) or as found (refused); -1 when the store could not tell.
   */
  reserve(
    slot: UsageSlot,
    amount: number,
    quota: number | null,
  ): Promise<{ granted: boolean; used: number }>;
  /** Gives back reserved units that were not used. */
  release(slot: UsageSlot, amount: number): Promise<void>;
  /** Units used per slot, in order. */
  read(slots: readonly UsageSlot[]): Promise<number[]>;
  /** Adds answered requests and their units to the totals of the day and month of `at`. */
  addTotals(at: Date, computeUnits: number, requests: number): Promise<void>;
  /** Totals of every key for the day and month of `at`. */
  totals(at: Date): Promise<UsageTotals>;
}

/**
 * Counters in the `api_key_usage` and `api_usage_totals` tables (give the primary: these are
 * writes). Each reservation is one conditional upsert.
 *
 * @example
 * const store = createDbUsageStore(primary);
 */
export function createDbUsageStore(db: Queryable): UsageStore {
  return {
    reserve: (slot, amount, quota) => reserveKeyUsage(db, slot, amount, quota),
    release: (slot, amount) => releaseKeyUsage(db, slot, amount),
    read: (slots) => readKeyUsage(db, slots),
    addTotals(at, computeUnits, requests) {
      const day = periodBounds('day', at).start;
      return addUsageTotals(db, day, periodBounds('month', at).start, computeUnits, requests);
    },
    totals(at) {
      return readUsageTotals(db, periodBounds('day', at).start, periodBounds('month', at).start);
    },
  };
}
