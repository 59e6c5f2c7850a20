import type { Queryable } from '@sluice/db';
import type { RpcClient } from '../rpc/index.js';

/** The reorg reaches below every block the store knows: it can't be repaired by rollback. */
export class ReorgTooDeepError extends Error {
  override name = 'ReorgTooDeepError';
}

const STEP = 32;

/**
 * Walks back from `from` until the node's block hash equals the stored one: that block is the
 * common ancestor of the stored chain and the node's. Headers are fetched 32 at a time.
 *
 * @example
 * const ancestor = await findCommonAncestor(db, rpc, chainId, checkpoint.block);
 */
export async function findCommonAncestor(
  db: Queryable,
  rpc: RpcClient,
  chainId: number,
  from: bigint,
  lowest: bigint,
): Promise<bigint> {
  let hi = from;
  while (hi >= lowest) {
    const lo = hi - BigInt(STEP) + 1n > lowest ? hi - BigInt(STEP) + 1n : lowest;
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
  if (lowest <= 0n) return -1n; // everything differs down to genesis (a fresh devnet)
  throw new ReorgTooDeepError(`no common ancestor at or above block ${lowest}`);
}
