/** Columns naming the wallets and tokens whose answers a rollback's statement changes. */
export interface Touched {
  wallets: readonly string[];
  tokens?: readonly string[];
}

/** A table whose rows a batch updates in place: snapshots in `reorg_undo` restore them. */
export interface UndoableTable {
  /** Columns (with their SQL types) that identify one snapshot within a chain. */
  key: readonly (readonly [column: string, type: string])[];
  touched: Touched | undefined;
}

/**
 * Tables restored from the undo log. A writer of one of these tables takes an `UndoScope` and
 * records the rows it is about to change through `recordUndo` (src/store/undo/record-undo.ts);
 * the rollback restores every table listed here.
 */
export const UNDOABLE_TABLES = {
  erc20_balances: {
    key: [
      ['wallet', 'text'],
      ['token', 'text'],
    ],
    touched: { wallets: ['wallet'], tokens: ['token'] },
  },
  native_balances: { key: [['wallet', 'text']], touched: { wallets: ['wallet'] } },
  nft_holdings: {
    key: [
      ['contract', 'text'],
      ['token_id', 'numeric'],
    ],
    touched: { wallets: ['wallet'], tokens: ['contract'] },
  },
  pools: { key: [['address', 'text']], touched: undefined },
} as const satisfies Record<string, UndoableTable>;

export type UndoableTableName = keyof typeof UNDOABLE_TABLES;

/**
 * Tables whose rows belong to one block and are never updated: a rollback deletes the rows above
 * its target, with the (wallet, token) columns whose answers that changes (NFT sales notify
 * through their own trigger).
 */
export const DELETED_BY_BLOCK = [
  {
    table: 'activity',
    block: 'block_number',
    touched: { wallets: ['wallet'], tokens: ['token_address'] },
  },
  {
    table: 'transactions',
    block: 'block_number',
    touched: { wallets: ['from_address', 'to_address'] },
  },
  { table: 'logs', block: 'block_number', touched: undefined },
  { table: 'pool_states', block: 'block_number', touched: undefined },
  { table: 'nft_sales', block: 'block_number', touched: undefined },
  { table: 'blocks', block: 'number', touched: undefined },
] as const satisfies readonly { table: string; block: string; touched: Touched | undefined }[];

/**
 * Tables with per-chain block columns that a rollback handles otherwise, each with the reason.
 * A new table holding rows of blocks must be listed in one of the three lists (a test checks
 * the migrated schema), so nobody adds one that a reorg silently leaves behind.
 */
export const ROLLED_BACK_OTHERWISE: Readonly<Record<string, string>> = {
  checkpoints: 'moved back to the rollback target by rollbackTo',
  reorg_undo: 'the undo log itself: entries above the target are replayed, then deleted',
  price_history: 'deleted above the target by the pricing rollback',
  token_prices: 'marked dirty above the target by the pricing rollback (the worker recomputes)',
  pricing_cursors: 'rewound to the target by the pricing rollback',
  pool_bootstrap_commits: 'forgotten above the checkpoint by the bootstrap rollback',
  tokens: 'contract metadata: the same on every fork (first_block only orders the fetch)',
  contract_probes: 'answers of eth_call probes of a contract: not derived from a block',
  nft_metadata: 'token metadata: refresh_block only records when a refresh was requested',
  nft_cursors: 'worker cursor of URI events, re-read from the store on every pass',
  nft_discovery_cursors: 'discovery cursor keyed by block hash: a reorg makes it restart',
  tracked_wallets: 'wallets-mode requests: their blocks are where a backfill handed over',
  webhook_deliveries:
    'webhook outbox: rollbackWebhookDeliveries drops unsent rows above the target and queues removals of sent ones',
};

/**
 * Of the given tables holding per-chain block numbers, those no list above says how a rollback
 * handles: a reorg would leave their rows of orphaned blocks behind.
 *
 * @example
 * unhandledByRollback(['activity', 'subscriptions_outbox']); // ['subscriptions_outbox']
 */
export function unhandledByRollback(blockTables: readonly string[]): string[] {
  const handled = new Set<string>([
    ...Object.keys(UNDOABLE_TABLES),
    ...DELETED_BY_BLOCK.map((t) => t.table),
    ...Object.keys(ROLLED_BACK_OTHERWISE),
  ]);
  return blockTables.filter((t) => !handled.has(t));
}
