import type { Queryable } from '@sluice/db';
import type { PoolState, TokenMetadata } from '../derive/index.js';
import { rollbackPricing } from '../reorg/rollback-pricing.js';
import { writeReadErc20Balances } from '../store/balances.js';
import { writeNewTokens, writePoolRows, writePoolStateRows } from '../store/index.js';
import type { readPoolStates } from './pool-state-read.js';

/**
 * One chunk's rows, inside the commit transaction, with undo entries at `block` (a rollback below
 * it deletes them: the follower's later snapshots of the same keys come after these by `seq`).
 */
export async function writeChunk(
  tx: Queryable,
  chainId: number,
  block: bigint,
  reads: Awaited<ReturnType<typeof readPoolStates>>,
  newTokens: readonly TokenMetadata[],
): Promise<void> {
  // Undo entries at `block`: a rollback below it restores the rows the chunk replaced.
  const undo = { chainId, batchFrom: block };
  const pools = reads.pools;
  await writePoolRows(tx, undo, chainId, pools, 'ignore');
  const withState = pools.filter((p) => p.updatedBlock !== null);
  await writePoolStateRows(
    tx,
    chainId,
    withState.map((p) => ({
      pool: p.address,
      block,
      time: p.updatedTime as Date,
      reserve0: p.reserve0,
      reserve1: p.reserve1,
      sqrtPriceX96: p.sqrtPriceX96,
      tick: p.tick,
      liquidity: p.liquidity,
    })),
    'on conflict (chain_id, pool, block_number) do nothing',
  );
  await writeReadErc20Balances(
    tx,
    undo,
    chainId,
    reads.held.map((h) => ({ wallet: h.pool, token: h.token, amount: h.amount })),
    block,
  );
  await writeNewTokens(tx, chainId, newTokens, () => block);
  // The pricing worker may be past `block`: it prices this chunk's states from block on.
  if (withState.length > 0) await rollbackPricing(tx, chainId, block - 1n);
}

/**
 * The v3 pools whose ERC20 balance changes a wallets-mode batch keeps (pricing caps a v3 pool's
 * depth by what it holds, read from erc20_balances as in full mode): pools the follower knows
 * and pools the batch creates.
 *
 * @example
 * const kept = mode.filter(batch, v3PoolHolders(batch, pools));
 */
export function v3PoolHolders(
  batch: { poolEvents: readonly { kind: string; pool: string; dex?: string }[] },
  known: ReadonlyMap<string, PoolState>,
): (wallet: string) => boolean {
  const created = new Set(
    batch.poolEvents
      .filter((e) => e.kind === 'created' && e.dex === 'uniswap_v3')
      .map((e) => e.pool),
  );
  return (w) => created.has(w) || known.get(w)?.dex === 'uniswap_v3';
}
