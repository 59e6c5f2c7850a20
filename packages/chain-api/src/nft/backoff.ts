/** Retry schedule of failed metadata fetches. */
export interface RetrySchedule {
  /** Delay after the first failure. Default 60 s. */
  baseMs: number;
  /** Longest delay; failures keep being retried at this pace. Default 24 h. */
  maxMs: number;
}

export const defaultRetrySchedule: RetrySchedule = { baseMs: 60_000, maxMs: 24 * 3_600_000 };

/**
 * Delay before the next attempt after `attempts` consecutive failures: base · 2^(attempts−1),
 * capped, with ±10 % jitter (`random` injectable for tests) so a burst of failures from one host
 * does not come back in lockstep.
 *
 * @example
 * retryDelay(3, defaultRetrySchedule, () => 0.5); // 240_000 (4 min)
 */
export function retryDelay(
  attempts: number,
  schedule: RetrySchedule = defaultRetrySchedule,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(attempts, 1) - 1, 40);
  const raw = Math.min(schedule.maxMs, schedule.baseMs * 2 ** exponent);
  return Math.round(raw * (0.9 + 0.2 * random()));
}
