import type { Migration } from '@sluice/db';
import { indexDefinition } from '../index-definition.js';

/** A wallet's transactions per chain, newest first, as sender. */
export const transactionsFromIndex =
  indexDefinition(`create index if not exists transactions_from_idx
        on transactions (from_address, chain_id, block_number desc, tx_index desc)`);
/** ... and as recipient. */
export const transactionsToIndex = indexDefinition(`create index if not exists transactions_to_idx
        on transactions (to_address, chain_id, block_number desc, tx_index desc)
        where to_address is not null`);
/** A transaction's logs in the transactions endpoint. */
export const logsTxIndex = indexDefinition(
  'create index if not exists logs_tx_idx on logs (chain_id, block_number, tx_index)',
);

/**
 * Indexes behind the peer-surface endpoints (transactions, token holders, token search), and
 * change notifications for the tables those endpoints read beyond `servedTables`. Runs after
 * `apiMigrations`, which defines `sluice_store_changed()`.
 */
export const simSurfaceMigrations: Migration[] = [
  {
    id: 'api-sim-001-wallet-transactions',
    // A wallet's transactions per chain, newest first, from either side; a time bound on a chain
    // becomes a block bound through blocks_time_idx (block time never decreases along a chain).
    sql: `
      ${transactionsFromIndex.create};
      ${transactionsToIndex.create};
      ${logsTxIndex.create};
      create index if not exists blocks_time_idx on blocks (chain_id, timestamp, number);
      create trigger transactions_store_changed
        after insert or update or delete or truncate on transactions
        for each statement execute function sluice_store_changed();
      create trigger logs_store_changed
        after insert or update or delete or truncate on logs
        for each statement execute function sluice_store_changed();
      create trigger blocks_store_changed
        after insert or update or delete or truncate on blocks
        for each statement execute function sluice_store_changed();
    `,
  },
  {
    id: 'api-sim-002-token-holders',
    // Holders ranked by balance, keyset-paged: one range scan per page at any depth. ERC20
    // "first acquired" / "has sent" live in erc20_balances (chain-003-holder-facts): a second index
    // on activity cost the indexer ~10% of its throughput.
    sql: `
      create index if not exists erc20_balances_holders_idx
        on erc20_balances (chain_id, token, amount desc, wallet);
      create index if not exists nft_holdings_contract_wallet_idx
        on nft_holdings (chain_id, contract, wallet);
    `,
  },
  {
    id: 'api-sim-003-token-search',
    // Case-insensitive prefix search on symbol and name: byte-wise (text_pattern_ops) ranges,
    // available on PostgreSQL and PGlite alike (pg_trgm is not bundled with PGlite).
    sql: `
      create index if not exists tokens_symbol_prefix_idx
        on tokens (lower(symbol) text_pattern_ops, chain_id) where symbol is not null;
      create index if not exists tokens_name_prefix_idx
        on tokens (lower(name) text_pattern_ops, chain_id) where name is not null;
    `,
  },
  {
    id: 'api-sim-004-merge-erc20-token-indexes',
    // erc20_balances_token_idx (chain_id, token, wallet) repeats the (chain_id, token) prefix of
    // erc20_balances_holders_idx: every read by token plans on the holders index, the pair
    // look-ups on the primary key (EXPLAIN before/after in docs/indexer.md). One index less for
    // every balance write to maintain.
    sql: 'drop index if exists erc20_balances_token_idx;',
  },
];
