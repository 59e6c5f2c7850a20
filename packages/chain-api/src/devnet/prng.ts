/**
 * Deterministic PRNG (mulberry32): tiny, fast, and good enough for picking scenario actions and
 * fuzz cases, so a seed reproduces a run.
 *
 * @example
 * const random = prng(42);
 * const coin = random() < 0.5;
 */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
