/** One observation of a chain's indexer: when, how far, and how many activity rows so far. */
export interface Observation {
  /** Unix ms. */
  at: number;
  indexed: number;
  /** Activity rows written since the previous observation. */
  events: number;
}

/** Blocks and events per second between two consecutive observations. */
export interface RateSample {
  /** Unix seconds (end of the interval). */
  t: number;
  blocks_per_second: number;
  events_per_second: number;
}

/**
 * The recent observations of one chain (at most `windowMs` old), as rates for the console's chart
 * and an ETA for a backfill.
 *
 * @example
 * const rates = createRateWindow(10 * 60_000);
 * rates.observe({ at: Date.now(), indexed: 100, events: 0 });
 */
export function createRateWindow(windowMs: number) {
  const seen: Observation[] = [];
  return {
    last(): Observation | undefined {
      return seen[seen.length - 1];
    },
    observe(o: Observation): void {
      const last = seen[seen.length - 1];
      // A rollback (reorg) or a reset store moves backwards: the rates restart from there.
      if (last && o.indexed < last.indexed) seen.length = 0;
      seen.push(o);
      while (seen.length > 2 && o.at - seen[0]!.at > windowMs) seen.shift();
    },
    samples(): RateSample[] {
      const out: RateSample[] = [];
      for (let i = 1; i < seen.length; i++) {
        const a = seen[i - 1]!;
        const b = seen[i]!;
        const seconds = (b.at - a.at) / 1000;
        if (seconds <= 0) continue;
        out.push({
          t: Math.round(b.at / 1000),
          blocks_per_second: round((b.indexed - a.indexed) / seconds),
          events_per_second: round(b.events / seconds),
        });
      }
      return out;
    },
    /** Seconds until `head` at the pace of the last `paceMs`; null without progress to go on. */
    eta(head: number | null, paceMs = 60_000): number | null {
      const last = seen[seen.length - 1];
      if (head === null || !last || head <= last.indexed) return head === null ? null : 0;
      const from = seen.find((o) => last.at - o.at <= paceMs) ?? seen[0]!;
      const seconds = (last.at - from.at) / 1000;
      const blocks = last.indexed - from.indexed;
      if (seconds <= 0 || blocks <= 0) return null;
      return Math.round((head - last.indexed) / (blocks / seconds));
    },
  };
}

const round = (value: number) => Math.round(value * 100) / 100;
