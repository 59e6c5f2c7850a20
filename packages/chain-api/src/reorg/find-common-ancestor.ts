import type { Queryable } from '@sluice/db';
import { BaseError } from '../errors/index.js';
import type { RpcClient } from '../rpc/index.js';

/** The reorg reaches below every block the store knows: it can't be repaired by rollback. */
export class ReorgTooDeepError extends BaseError<'REORG_TOO_DEEP'> {
  override name = 'ReorgTooDeepError';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: 'REORG_TOO_DEEP', cause: options.cause });
  }
}

const STEP = 32;

/**
 * Walks back from `from` until the node's block hash equals the stored one: that block is the
 * common ancestor of the stored chain and the node's. Headers are fetched 32 at a time.
 */
export async function findCommonAncestor(
  db: Queryable,
  rpc: RpcClient,
  chainId: number,
  from: bigint,
  lowest: bigint,
): Promise<bigint> {
  let hi = from;
  // Block numbers below 0 don't exist: `lowest` is -1 when the window reaches below genesis, and
  // asking the node for block "0x-1" fails forever (-32602 invalid digit).
  const floor = lowest < 0n ? 0n : lowest;
  while (hi >= floor) {
    const lo = hi - BigInt(STEP) + 1n > floor ? hi - BigInt(STEP) + 1n : floor;
    const { rows } = await db.query<{ number: string; hash: string }>(
      'select number, hash from blocks where chain_id = $1 and number between $2 and $3',
      [chainId, lo.toString(), hi.toString()],
    );
    const stored = new Map(rows.map((r) => [BigInt(r.number), r.hash]));
    const numbers: bigint[] = [];
    for (let n = hi; n >= lo; n--) numbers.push(n);
    const headers = await rpc.batch<{ hash: string } | null>(
      numbers.map((n) => ({
        method: 'eth_getBlockByNumber',
        params: [`0x${n.toString(16)}`, false],
      })),
    );
    for (let i = 0; i < numbers.length; i++) {
      const n = numbers[i] as bigint;
      const h = headers[i];
      const s = stored.get(n);
      if (h && s && h.hash.toLowerCase() === s) return n;
    }
    hi = lo - 1n;
  }
  // Everything differs down to genesis while the window covers the whole chain: roll back all.
  if (lowest < 0n) return -1n;
  throw new ReorgTooDeepError(
    `no common ancestor with the node's chain at or above block ${lowest} (the stored window)`,
  );
}
