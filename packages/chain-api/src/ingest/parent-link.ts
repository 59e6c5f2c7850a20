import type { DerivedBatch } from '../derive/index.js';
import type { RpcClient } from '../rpc/index.js';
import type { Checkpoint } from './indexer-types.js';

/**
 * Where a fetched batch fails to continue the store: undefined when its first block's parent is
 * the checkpoint (or when the checkpoint is the empty anchor below a genesis start, which has no
 * parent to match), else what was expected and got, for the reorg log line.
 *
 * @example
 * const broken = brokenParentLink(batch, checkpoint, chain.startBlock);
 */
export function brokenParentLink(
  batch: Pick<DerivedBatch, 'blocks' | 'fromBlock'>,
  current: Checkpoint,
  startBlock: bigint,
): { at: number; expected: string; got: string | undefined } | undefined {
  const first = batch.blocks[0];
  if (first && first.parentHash === current.hash) return undefined;
  // The very first batch of a chain indexed from genesis has no parent to match.
  if (current.block < startBlock && current.hash === '0x') return undefined;
  return { at: Number(batch.fromBlock), expected: current.hash, got: first?.parentHash };
}

/**
 * Whether the node's block at the checkpoint's height is still the indexed one (a checkpoint
 * below the start block has nothing to compare and always matches).
 *
 * @example
 * if (!(await tipOnNode(rpc, checkpoint, chain.startBlock))) await repair();
 */
export async function tipOnNode(
  rpc: RpcClient,
  cp: Checkpoint,
  startBlock: bigint,
): Promise<boolean> {
  if (cp.block < startBlock) return true;
  const b = await rpc.request<{ hash: string } | null>('eth_getBlockByNumber', [
    `0x${cp.block.toString(16)}`,
    false,
  ]);
  return Boolean(b && b.hash.toLowerCase() === cp.hash);
}
