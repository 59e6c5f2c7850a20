import { isRangeTooLarge, RpcResponseError } from '../rpc/index.js';

/** One wallet-related `eth_getLogs` hit: where the transaction is. */
export interface TxRef {
  block: bigint;
  hash: string;
}

/**
 * Runs `query(from, to)` over `[from, to]`, halving any range the node refuses as too large or
 * too many results (the usual provider limits), down to single blocks; starts with `initial`
 * blocks per call and grows again after successes. Returns every answer's items.
 *
 * @example
 * const refs = await splitRanges(0n, head, 100_000n, (a, b) => getLogs(rpc, filter, a, b));
 */
export async function splitRanges<T>(
  from: bigint,
  to: bigint,
  initial: bigint,
  query: (from: bigint, to: bigint) => Promise<T[]>,
  signal?: AbortSignal,
): Promise<T[]> {
  const out: T[] = [];
  let size = initial > 0n ? initial : 1n;
  let at = from;
  while (at <= to) {
    signal?.throwIfAborted();
    const end = at + size - 1n < to ? at + size - 1n : to;
    try {
      out.push(...(await query(at, end)));
      at = end + 1n;
      if (size < initial) size *= 2n;
    } catch (error) {
      if (!isTooLarge(error) || end === at) throw error;
      size = (end - at + 1n) / 2n;
    }
  }
  return out;
}

/** A range refusal: too many results, block range limits, or an oversized response. */
function isTooLarge(error: unknown): boolean {
  if (isRangeTooLarge(error)) return true;
  // Some nodes answer a generic -32000/-32602 naming the range or the result count.
  return (
    error instanceof RpcResponseError &&
    /query returned|exceed|max(imum)? .*(blocks|results)|too large|10000/i.test(error.message)
  );
}
