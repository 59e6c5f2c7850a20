import type { Queryable } from '@sluice/db';
import type { DerivedBatch, PoolChanges, TokenMetadata } from '../derive/index.js';
import { writeActivity } from './activity.js';
import { writeErc20Deltas, writeNativeBalances } from './balances.js';
import { type StoreLogs, writeBlocks, writeLogs, writeTransactions } from './chain-data.js';
import type { StoreChangeBuilder } from './changes/store-change-builder.js';
import { writeNftHoldings } from './nft-holdings.js';
import { queueNftMetadata } from './nft-metadata.js';
import { writeNftSales } from './nft-sales.js';
import { writePoolRows, writePoolStateRows } from './pools.js';
import { writeNewTokens } from './tokens.js';
import { pruneUndo, type UndoScope } from './undo/record-undo.js';

/** What `writeBatchRows` writes: a batch's rows without the checkpoint move. */
export interface BatchRowsInput {
  chainId: number;
  batch: DerivedBatch;
  /** Native balances of `batch.nativeTouched` at `batch.toBlock`. */
  nativeBalances: ReadonlyMap<string, bigint>;
  /** Metadata of token contracts first seen in this batch. */
  newTokens: readonly TokenMetadata[];
  pools: PoolChanges;
  /** Drop undo entries of batches that started below this block (finalized). */
  pruneUndoBelow: bigint;
  storeLogs: StoreLogs;
}

/** How `writeBatchRows` writes. */
export interface BatchRowsOptions {
  /** Skip rows already stored instead of appending (wallets-mode backfills). */
  idempotent?: boolean;
  /** The batch reaches into the unfinalized window: its writers record undo under this scope. */
  undo?: UndoScope | null;
  /** Gains the wallets only the writes can name (an ERC721's previous owner); the caller publishes. */
  change?: StoreChangeBuilder | undefined;
}

/**
 * Writes a derived batch's rows (no checkpoint move), one table writer each. `idempotent`
 * (wallets-mode backfills, src/wallets) skips rows already stored instead of appending: a
 * transaction shared with another tracked wallet is stored once.
 *
 * @example
 * await writeBatchRows(tx, { chainId, batch, nativeBalances, newTokens, pools, pruneUndoBelow: 0n, storeLogs }, { idempotent: true });
 */
export async function writeBatchRows(
  tx: Queryable,
  input: BatchRowsInput,
  options: BatchRowsOptions = {},
): Promise<void> {
  const { chainId: chain, batch } = input;
  const undo = options.undo ?? null;
  const append = options.idempotent ? 'on conflict do nothing' : '';
  await writeBlocks(tx, chain, batch, append);
  await writeTransactions(tx, chain, batch, append);
  await writeLogs(tx, chain, batch, input.storeLogs, append);
  await writeActivity(tx, chain, batch, append);
  await writeErc20Deltas(tx, undo, chain, batch);
  await writeNativeBalances(tx, undo, chain, input.nativeBalances, batch.toBlock);
  for (const previousOwner of await writeNftHoldings(tx, undo, chain, batch)) {
    options.change?.wallet(chain, previousOwner);
  }
  await writeNewTokens(
    tx,
    chain,
    input.newTokens,
    (t) => batch.tokens.get(t.address)?.firstBlock ?? batch.fromBlock,
  );
  await writePoolRows(tx, undo, chain, input.pools.changed, 'update');
  await writePoolStateRows(tx, chain, input.pools.states);
  await queueNftMetadata(tx, chain, batch);
  await writeNftSales(tx, chain, batch);
  await pruneUndo(tx, chain, input.pruneUndoBelow);
}
