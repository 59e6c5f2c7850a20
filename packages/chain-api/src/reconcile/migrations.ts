import type { Migration } from '@sluice/db';

/**
 * Balance reconciliation: balances are the chain's `balanceOf`, Transfer deltas are a
 * fast path. Existing stores are healed on upgrade: negative amounts (from tokens that move
 * balances without events) are zeroed and every chain is marked unreconciled, so the indexer reads
 * every pair from the node before it reports ready again.
 */
const reconcile = /* sql */ `
-- conserving: balances move only with events we decode (Transfer, and Deposit/Withdrawal of the
-- chain's registered wrapped native). non_conserving: a balanceOf read differed from the deltas,
-- a delta would have gone negative, or the contract moves balances with other events (a WETH9
-- clone's Deposit/Withdrawal): every holder is re-read on a schedule.
alter table tokens
  add column balance_model text not null default 'conserving'
    check (balance_model in ('conserving', 'non_conserving')),
  add column balance_model_reason text,
  add column balance_model_block bigint,
  -- last balanceOf failure (revert, garbage answer): deltas are kept for such pairs, never negative.
  add column balance_read_error text;

-- The store equals the chain's balanceOf for every pair at this block, and every batch since was
-- reconciled too (null: never fully reconciled; the next catch-up reads every pair).
alter table checkpoints add column reconciled_block bigint;

update erc20_balances set amount = 0 where amount < 0;
delete from nft_holdings where balance <= 0;
alter table erc20_balances add constraint erc20_balances_amount_nonneg check (amount >= 0);
alter table nft_holdings add constraint nft_holdings_balance_nonneg check (balance >= 0);

-- Holders of a token (re-reads of non-conserving tokens, keyset over wallets).
create index erc20_balances_token_idx on erc20_balances (chain_id, token, wallet);
`;

/** Appended to `chainMigrations`. */
export const reconcileMigrations: Migration[] = [{ id: 'chain-reconcile-001', sql: reconcile }];
