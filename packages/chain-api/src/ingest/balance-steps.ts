import type { Database } from '@sluice/db';
import type { DerivedBatch } from '../derive/index.js';
import { fetchNativeBalances } from '../derive/index.js';
import { type BalancePair, readBalances } from '../reconcile/read-balances.js';
import type { RpcClient } from '../rpc/index.js';
import { type BalanceSteps, pairKey, touchedPairs } from '../store/subscriptions/balance-items.js';
import { watchedBalanceWallets } from '../store/subscriptions/balance-watchers.js';
import { webhooksIn } from './webhook-tables.js';

/** The blocks before the batch's last at which `wallet`'s `asset` moved (where it may change). */
function movedAt(batch: DerivedBatch, wallet: string, asset: string, last: bigint): Set<bigint> {
  const out = new Set<bigint>();
  const add = (block: bigint) => {
    if (block < last) out.add(block);
  };
  for (const row of batch.activity) {
    if (row.wallet !== wallet) continue;
    if (asset === 'native' ? row.assetType === 'native' : row.tokenAddress === asset)
      add(row.blockNumber);
  }
  if (asset === 'native') {
    // Gas, and value a trace-less chain shows only on the transaction.
    for (const tx of batch.txs) if (tx.from === wallet || tx.to === wallet) add(tx.blockNumber);
  } else {
    for (const m of batch.wrapperMoves) if (m.wallet === wallet && m.token === asset) add(m.block);
  }
  return out;
}

/**
 * The node's balances of the pairs a balances webhook watches, at each block inside a batch of
 * several blocks where the pair moved (the batch's last block is the store's own read). Read in
 * the prepare stage, never in the batch's transaction: one eth_getBalance batch and one
 * Multicall3 balanceOf per such block, for watched pairs only. Undefined when nothing is
 * watched or the batch is one block. A block the node cannot answer for (pruned state, a
 * reverting balanceOf) is left out: that pair's change is then itemized at its next known block.
 *
 * @example
 * const steps = await readBalanceSteps(db, rpc, caps.multicall3, chainId, batch);
 */
export async function readBalanceSteps(
  db: Database,
  rpc: RpcClient,
  multicall3: string | null,
  chainId: number,
  batch: DerivedBatch,
): Promise<BalanceSteps | undefined> {
  const last = batch.blocks[batch.blocks.length - 1]?.number;
  if (last === undefined || batch.blocks.length < 2 || !(await webhooksIn(db))) return undefined;
  const pairs = touchedPairs(batch);
  const watched = await watchedBalanceWallets(db, chainId, [
    ...new Set(pairs.map((p) => p.wallet)),
  ]);
  if (watched.size === 0) return undefined;
  const native = new Map<bigint, string[]>();
  const erc20 = new Map<bigint, BalancePair[]>();
  for (const { wallet, asset } of pairs) {
    if (!watched.has(wallet)) continue;
    for (const block of movedAt(batch, wallet, asset, last)) {
      if (asset === 'native') native.set(block, [...(native.get(block) ?? []), wallet]);
      else erc20.set(block, [...(erc20.get(block) ?? []), { token: asset, wallet }]);
    }
  }
  const steps = new Map<string, Map<bigint, bigint>>();
  const put = (wallet: string, asset: string, block: bigint, amount: bigint) => {
    const key = pairKey(wallet, asset);
    const at = steps.get(key) ?? new Map<bigint, bigint>();
    at.set(block, amount);
    steps.set(key, at);
  };
  await Promise.all([
    ...[...native].map(async ([block, wallets]) => {
      const { balances, atLatest } = await fetchNativeBalances(rpc, wallets, block);
      if (atLatest) return;
      for (const [wallet, amount] of balances) put(wallet, 'native', block, amount);
    }),
    ...[...erc20].map(async ([block, list]) => {
      const values = await readBalances(rpc, multicall3, list, block);
      list.forEach((p, i) => {
        const v = values[i];
        if (v !== null && v !== undefined) put(p.wallet, p.token, block, v);
      });
    }),
  ]);
  return steps;
}
