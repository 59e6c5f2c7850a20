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
 * Alternates two functions for `rounds` short rounds and keeps each one's best round: other
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
    bestA = Math.max(bestA, await opsPerSecond(a, roundMs));
    bestB = Math.max(bestB, await opsPerSecond(b, roundMs));
  }
  return [bestA, bestB];
}
