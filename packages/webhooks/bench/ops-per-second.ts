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
