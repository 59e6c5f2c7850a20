import type { Database } from '@sluice/db';
import {
  type DerivedBatch,
  fetchTokenMetadata,
  resolveApprovalStandards,
  type TokenMetadata,
} from '../derive/index.js';
import type { ChainCapabilities, RpcClient } from '../rpc/index.js';
import { type PairBalances, pairKey, touchedPairs } from '../store/subscriptions/balance-items.js';
import { watchedWallets } from '../store/subscriptions/balance-watchers.js';
import { touchedAddresses } from '../store/subscriptions/queue-deliveries.js';
import { readPairsAt } from './balance-steps.js';
import type { IndexerMode } from './indexer-mode.js';
import type { TokenStandards } from './token-standards.js';
import { webhooksIn } from './webhook-tables.js';

/**
 * What webhooks need of a batch beyond what a mode stores. The items of a watched wallet whose
 * rows the store does not keep (wallets mode, an untracked wallet) are built from the batch as
 * derived, before the mode's filter, exactly as full mode builds them. The balances of a watched
 * wallet whose stored balances are not complete (untracked, or its backfill not done) come from
 * the node instead of the store. Nothing here is written.
 */
export interface UnstoredWatch {
  /** The batch webhook items are built from: the derived one when some rows were dropped. */
  batch: DerivedBatch;
  /** Watched wallets whose balances come from the node. */
  wallets: ReadonlySet<string>;
  /** Their balances (by `pairKey`) at the block before the batch, read from the node. */
  before: PairBalances;
  /** Their balances at the batch's last block, read from the node. */
  after: PairBalances;
  /** Metadata of tokens only dropped rows name and the store does not know (for the items). */
  tokens: TokenMetadata[];
}

/** The parts of the indexer the unstored watch is read with. */
export interface UnstoredWatchDeps {
  db: Database;
  rpc: RpcClient;
  caps: ChainCapabilities;
  chainId: number;
  mode: IndexerMode;
  standards: TokenStandards;
}

/** Tokens the rows of `wallets` name (activity, balance changes, wraps, swap sides). */
function tokensOf(batch: DerivedBatch, wallets: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  for (const row of batch.activity) {
    if (!wallets.has(row.wallet)) continue;
    if (row.tokenAddress) out.add(row.tokenAddress);
    for (const v of [row.extra?.from_token_address, row.extra?.to_token_address]) {
      if (typeof v === 'string' && v !== 'native') out.add(v);
    }
  }
  for (const d of batch.erc20Deltas.values()) if (wallets.has(d.wallet)) out.add(d.token);
  for (const m of batch.wrapperMoves) if (wallets.has(m.wallet)) out.add(m.token);
  return [...out];
}

/**
 * In the prepare stage of a batch whose mode drops rows: finds the addresses of `derived` that an
 * active webhook of the chain watches and the store does not hold whole, and reads what their
 * items need from the node (balances at the block before the batch and at its last block,
 * metadata of tokens the store does not know). Undefined when there are none (the kept batch and
 * the store serve every webhook). An untracked wallet needs no backfill for this: an item only
 * concerns its own block.
 *
 * @example
 * const unstored = await readUnstoredWatch(deps, { derived, kept }, standardOf);
 */
export async function readUnstoredWatch(
  deps: UnstoredWatchDeps,
  batches: { derived: DerivedBatch; kept: DerivedBatch },
  standardOf: (token: string) => string | undefined,
): Promise<UnstoredWatch | undefined> {
  const { db, rpc, caps, mode } = deps;
  const { derived } = batches;
  const last = derived.blocks[derived.blocks.length - 1]?.number;
  if (last === undefined || !(await webhooksIn(db))) return undefined;
  const candidates = touchedAddresses(derived).filter((a) => mode.stores(a) !== 'complete');
  const watched = await watchedWallets(db, deps.chainId, candidates);
  if (watched.size === 0) return undefined;
  const dropped = new Set([...watched.keys()].filter((a) => mode.stores(a) === 'none'));
  const batch = dropped.size > 0 ? derived : batches.kept;
  // Tokens of the kept batch are known already (stored, or read for it).
  const unknown = tokensOf(batch, dropped).filter((a) => standardOf(a) === undefined);
  const missing = await deps.standards.load(db, unknown);
  const hints = new Map(missing.map((a) => [a, derived.tokens.get(a)?.hint ?? 'unknown']));
  const tokens = await fetchTokenMetadata(rpc, missing, { multicall3: caps.multicall3, hints });
  const fresh = new Map(tokens.map((t) => [t.address, t.standard]));
  if (batch === derived) resolveApprovalStandards(derived, (a) => fresh.get(a) ?? standardOf(a));
  const pairs = touchedPairs(batch).filter((p) => watched.get(p.wallet)?.has('balances'));
  const [before, after] = await Promise.all([
    readPairsAt(rpc, caps.multicall3, pairs, derived.fromBlock - 1n),
    readPairsAt(rpc, caps.multicall3, pairs, last),
  ]);
  // A token balance the node could not give before the batch has no item (the store's default
  // of 0 would be wrong); a native one shows an unknown amount_before, as for a new address.
  for (const { wallet, asset } of pairs) {
    const key = pairKey(wallet, asset);
    if (asset !== 'native' && !before.has(key)) after.delete(key);
  }
  return { batch, wallets: new Set(watched.keys()), before, after, tokens };
}
