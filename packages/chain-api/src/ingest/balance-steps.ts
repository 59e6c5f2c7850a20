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
  const byBlock = new Map<bigint, { wallet: string; asset: string }[]>();
  for (const pair of pairs) {
    if (!watched.has(pair.wallet)) continue;
    for (const block of movedAt(batch, pair.wallet, pair.asset, last)) {
      byBlock.set(block, [...(byBlock.get(block) ?? []), pair]);
    }
  }
  const steps = new Map<string, Map<bigint, bigint>>();
  await Promise.all(
    [...byBlock].map(async ([block, list]) => {
      for (const [key, amount] of await readPairsAt(rpc, multicall3, list, block)) {
        const at = steps.get(key) ?? new Map<bigint, bigint>();
        at.set(block, amount);
        steps.set(key, at);
      }
    }),
  );
  return steps;
}

/**
 * The node's balances of (wallet, asset) pairs at `block`, by {@link pairKey}: one
 * eth_getBalance batch for the native pairs, one Multicall3 balanceOf for the rest. A pair the
 * node cannot answer for at that block (pruned state, a reverting balanceOf) is left out.
 *
 * @example
 * const at = await readPairsAt(rpc, multicall3, [{ wallet, asset: 'native' }], 99n);
 */
export async function readPairsAt(
  rpc: RpcClient,
  multicall3: string | null,
  pairs: readonly { wallet: string; asset: string }[],
  block: bigint,
): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  const wallets = pairs.filter((p) => p.asset === 'native').map((p) => p.wallet);
  const erc20: BalancePair[] = pairs
    .filter((p) => p.asset !== 'native')
    .map((p) => ({ token: p.asset, wallet: p.wallet }));
  await Promise.all([
    (async () => {
      if (wallets.length === 0) return;
      const { balances, atLatest } = await fetchNativeBalances(rpc, wallets, block, { multicall3 });
      if (atLatest) return;
      for (const [wallet, amount] of balances) out.set(pairKey(wallet, 'native'), amount);
    })(),
    (async () => {
      if (erc20.length === 0) return;
      const values = await readBalances(rpc, multicall3, erc20, block);
      erc20.forEach((p, i) => {
        const v = values[i];
        if (v !== null && v !== undefined) out.set(pairKey(p.wallet, p.token), v);
      });
    })(),
  ]);
  return out;
}
