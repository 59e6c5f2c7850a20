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
  // The smallest span refused: not asked for again until RETRY_REFUSED_AFTER successes in a row
  // (a node's fixed range limit would otherwise cost a refusal every other call; a limit on
  // results depends on how busy the blocks are, so the span is tried again now and then).
  let refused: bigint | undefined;
  let streak = 0;
  let at = from;
  while (at <= to) {
    signal?.throwIfAborted();
    const end = at + size - 1n < to ? at + size - 1n : to;
    try {
      out.push(...(await query(at, end)));
      at = end + 1n;
      streak++;
      const grown = size * 2n;
      if (size < initial && (refused === undefined || grown < refused)) size = grown;
      else if (size < initial && streak >= RETRY_REFUSED_AFTER) {
        size = grown;
        refused = undefined;
      }
    } catch (error) {
      if (!isTooLarge(error) || end === at) throw error;
      refused = end - at + 1n;
      streak = 0;
      size = refused / 2n;
    }
  }
  return out;
}

const RETRY_REFUSED_AFTER = 8;

/** A range refusal: too many results, block range limits, or an oversized response. */
function isTooLarge(error: unknown): boolean {
  if (isRangeTooLarge(error)) return true;
  // Some nodes answer a generic -32000/-32602 naming the range or the result count.
  return (
    error instanceof RpcResponseError &&
    /query returned|exceed|max(imum)? .*(blocks|results)|too large|10000/i.test(error.message)
  );
}
