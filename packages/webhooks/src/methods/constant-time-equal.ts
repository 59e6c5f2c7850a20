/**
 * Compares two strings in time that depends only on their length, not on where they differ:
 * every character is XOR-accumulated, with no early exit. Used on hex digests, whose length is
 * public. Allocation-free, so cheaper than copying both into Buffers for `timingSafeEqual`.
 *
 * @example
 * ```ts
 * constantTimeEqual(computedHex, receivedHex);
 * ```
 */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
