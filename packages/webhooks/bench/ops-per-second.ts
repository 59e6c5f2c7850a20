/**
 * Runs `fn` sequentially for about `durationMs` after a warm-up and returns operations per
 * second. Batches keep clock reads out of the measured loop.
 */
export async function opsPerSecond(
  fn: () => Promise<unknown> | unknown,
  durationMs = 2000,
  batch = 64,
): Promise<number> {
  const warmUntil = performance.now() + Math.min(500, durationMs / 4);
  while (performance.now() < warmUntil) {
    for (let i = 0; i < batch; i++) await fn();
  }
  let ops = 0;
  const start = performance.now();
  let now = start;
  while (now - start < durationMs) {
    for (let i = 0; i < batch; i++) await fn();
    ops += batch;
    now = performance.now();
  }
  return (ops * 1000) / (now - start);
}

/**
 * Alternates two functions for `rounds` short rounds (swapping which goes first) and keeps each
 * one's best round: other
 * processes on the machine can only slow a round down, so the best round is the least disturbed.
 */
export async function bestOfAlternating(
  a: () => Promise<unknown> | unknown,
  b: () => Promise<unknown> | unknown,
  rounds: number,
  roundMs: number,
): Promise<[number, number]> {
  let bestA = 0;
  let bestB = 0;
  for (let i = 0; i < rounds; i++) {
    // Swap who goes first each round: the second of a pair measured systematically faster
    // (garbage and CPU state left by the first), which would bias a fixed order.
    if (i % 2 === 0) {
      bestA = Math.max(bestA, await opsPerSecond(a, roundMs));
      bestB = Math.max(bestB, await opsPerSecond(b, roundMs));
    } else {
      bestB = Math.max(bestB, await opsPerSecond(b, roundMs));
      bestA = Math.max(bestA, await opsPerSecond(a, roundMs));
    }
  }
  return [bestA, bestB];
}
