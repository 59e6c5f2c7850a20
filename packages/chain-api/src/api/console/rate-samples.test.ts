import { describe, expect, it } from 'vitest';
import { createRateWindow } from './rate-samples.js';

describe('createRateWindow', () => {
  it('turns observations into blocks/s and events/s per interval', () => {
    const w = createRateWindow(600_000);
    w.observe({ at: 0, indexed: 100, events: 0 });
    w.observe({ at: 2_000, indexed: 120, events: 50 });
    w.observe({ at: 4_000, indexed: 130, events: 10 });
    expect(w.samples()).toEqual([
      { t: 2, blocks_per_second: 10, events_per_second: 25 },
      { t: 4, blocks_per_second: 5, events_per_second: 5 },
    ]);
  });

  it('forgets observations older than the window', () => {
    const w = createRateWindow(10_000);
    for (let i = 0; i <= 10; i++) w.observe({ at: i * 2_000, indexed: i * 10, events: 0 });
    const samples = w.samples();
    expect(samples[0]!.t).toBeGreaterThanOrEqual(12);
    expect(samples.length).toBe(5);
  });

  it('estimates the time to the head from the last minute of progress', () => {
    const w = createRateWindow(600_000);
    w.observe({ at: 0, indexed: 0, events: 0 });
    w.observe({ at: 100_000, indexed: 1_000, events: 0 }); // outside the minute before the last
    w.observe({ at: 130_000, indexed: 1_300, events: 0 });
    w.observe({ at: 160_000, indexed: 1_600, events: 0 }); // 10 blocks/s over the last minute
    expect(w.eta(2_600)).toBe(100);
    expect(w.eta(1_600)).toBe(0);
    expect(w.eta(null)).toBeNull();
  });

  it('has no ETA without progress, and restarts after the index moved back (reorg, reset)', () => {
    const w = createRateWindow(600_000);
    w.observe({ at: 0, indexed: 50, events: 0 });
    w.observe({ at: 5_000, indexed: 50, events: 0 });
    expect(w.eta(100)).toBeNull();
    w.observe({ at: 10_000, indexed: 40, events: 0 });
    expect(w.samples()).toEqual([]);
  });
});
