import type { Migration } from '@sluice/db';
import { indexDefinition } from './index-definition.js';

/** A wallet's activity by token: `activity?token_address=` and NFT holders' first receipts. */
export const activityTokenIndex =
  indexDefinition(`create index if not exists activity_wallet_token_idx on activity (wallet, token_address, block_time desc)
  where token_address is not null`);

/**
 * Totals the token endpoints read instead of scanning every holder on each request:
 *
 * - `token_supply`: per ERC20, the sum of the positive balances and how many wallets hold some
 *   (what `token-info` showed by summing `erc20_balances`: a full scan of a token's holders,
 *   millions of rows for a stablecoin indexed from genesis).
 * - `nft_holder_totals`: per collection and wallet, the items held (ERC721 count or ERC1155
 *   balance sum), indexed by amount (what `token-holders` aggregated over every holding of
 *   the collection per page).
 *
 * Statement triggers with transition tables keep both in step with every write of
 * `erc20_balances` / `nft_holdings`: the batch writers, wallet backfills, evictions and the
 * reorg undo replay alike, in the writer's transaction, so a rollback restores them with the
 * rows they sum (no undo entries of their own). One upsert per statement, keys in order (two
 * writers lock the same totals in the same order).
 *
 * An index of a wallet's activity by token serves `activity?token_address=` and the NFT
 * holders' first-receipt facts with a range scan instead of the wallet's whole feed.
 */
const totals = /* sql */ `
create table token_supply (
  chain_id  integer not null,
  token     text    not null,
  supply    numeric not null,
  holders   bigint  not null,
  primary key (chain_id, token)
);
insert into token_supply (chain_id, token, supply, holders)
  select chain_id, token, sum(amount), count(*) from erc20_balances where amount > 0
   group by chain_id, token;

create function sluice_token_supply_insert() returns trigger language plpgsql as $fn$
begin
  insert into token_supply as s (chain_id, token, supply, holders)
  select chain_id, token, sum(greatest(amount, 0)), count(*) filter (where amount > 0)
    from new_rows group by chain_id, token
  having sum(greatest(amount, 0)) <> 0 or count(*) filter (where amount > 0) <> 0
   order by chain_id, token
  on conflict (chain_id, token) do update
    set supply = s.supply + excluded.supply, holders = s.holders + excluded.holders;
  return null;
end $fn$;

create function sluice_token_supply_update() returns trigger language plpgsql as $fn$
begin
  insert into token_supply as s (chain_id, token, supply, holders)
  select chain_id, token, sum(d), sum(h)
    from (select chain_id, token, greatest(amount, 0) as d, (amount > 0)::int as h from new_rows
          union all
          select chain_id, token, -greatest(amount, 0), -(amount > 0)::int from old_rows) x
   group by chain_id, token
  having sum(d) <> 0 or sum(h) <> 0
   order by chain_id, token
  on conflict (chain_id, token) do update
    set supply = s.supply + excluded.supply, holders = s.holders + excluded.holders;
  return null;
end $fn$;

create function sluice_token_supply_delete() returns trigger language plpgsql as $fn$
begin
  insert into token_supply as s (chain_id, token, supply, holders)
  select chain_id, token, -sum(greatest(amount, 0)), -count(*) filter (where amount > 0)
    from old_rows group by chain_id, token
  having sum(greatest(amount, 0)) <> 0 or count(*) filter (where amount > 0) <> 0
   order by chain_id, token
  on conflict (chain_id, token) do update
    set supply = s.supply + excluded.supply, holders = s.holders + excluded.holders;
  return null;
end $fn$;

create function sluice_token_supply_truncate() returns trigger language plpgsql as $fn$
begin
  delete from token_supply;
  return null;
end $fn$;

create trigger erc20_balances_supply_insert after insert on erc20_balances
  referencing new table as new_rows for each statement execute function sluice_token_supply_insert();
create trigger erc20_balances_supply_update after update on erc20_balances
  referencing old table as old_rows new table as new_rows
  for each statement execute function sluice_token_supply_update();
create trigger erc20_balances_supply_delete after delete on erc20_balances
  referencing old table as old_rows for each statement execute function sluice_token_supply_delete();
create trigger erc20_balances_supply_truncate after truncate on erc20_balances
  for each statement execute function sluice_token_supply_truncate();

create table nft_holder_totals (
  chain_id  integer not null,
  contract  text    not null,
  wallet    text    not null,
  amount    numeric not null,
  primary key (chain_id, contract, wallet)
);
create index nft_holder_totals_rank_idx on nft_holder_totals (chain_id, contract, amount desc, wallet);
insert into nft_holder_totals (chain_id, contract, wallet, amount)
  select chain_id, contract, wallet, sum(balance) from nft_holdings where balance > 0
   group by chain_id, contract, wallet;

create function sluice_nft_holder_totals_insert() returns trigger language plpgsql as $fn$
begin
  insert into nft_holder_totals as t (chain_id, contract, wallet, amount)
  select chain_id, contract, wallet, sum(greatest(balance, 0)) from new_rows
   group by chain_id, contract, wallet having sum(greatest(balance, 0)) <> 0
   order by chain_id, contract, wallet
  on conflict (chain_id, contract, wallet) do update set amount = t.amount + excluded.amount;
  return null;
end $fn$;

create function sluice_nft_holder_totals_update() returns trigger language plpgsql as $fn$
begin
  insert into nft_holder_totals as t (chain_id, contract, wallet, amount)
  select chain_id, contract, wallet, sum(d)
    from (select chain_id, contract, wallet, greatest(balance, 0) as d from new_rows
          union all
          select chain_id, contract, wallet, -greatest(balance, 0) from old_rows) x
   group by chain_id, contract, wallet having sum(d) <> 0
   order by chain_id, contract, wallet
  on conflict (chain_id, contract, wallet) do update set amount = t.amount + excluded.amount;
  return null;
end $fn$;

create function sluice_nft_holder_totals_delete() returns trigger language plpgsql as $fn$
begin
  insert into nft_holder_totals as t (chain_id, contract, wallet, amount)
  select chain_id, contract, wallet, -sum(greatest(balance, 0)) from old_rows
   group by chain_id, contract, wallet having sum(greatest(balance, 0)) <> 0
   order by chain_id, contract, wallet
  on conflict (chain_id, contract, wallet) do update set amount = t.amount + excluded.amount;
  return null;
end $fn$;

create function sluice_nft_holder_totals_truncate() returns trigger language plpgsql as $fn$
begin
  delete from nft_holder_totals;
  return null;
end $fn$;

create trigger nft_holdings_totals_insert after insert on nft_holdings
  referencing new table as new_rows
  for each statement execute function sluice_nft_holder_totals_insert();
create trigger nft_holdings_totals_update after update on nft_holdings
  referencing old table as old_rows new table as new_rows
  for each statement execute function sluice_nft_holder_totals_update();
create trigger nft_holdings_totals_delete after delete on nft_holdings
  referencing old table as old_rows
  for each statement execute function sluice_nft_holder_totals_delete();
create trigger nft_holdings_totals_truncate after truncate on nft_holdings
  for each statement execute function sluice_nft_holder_totals_truncate();

${activityTokenIndex.create};
`;

/** Appended at the end of the store's migrations. */
export const tokenTotalsMigrations: Migration[] = [{ id: 'chain-totals-001', sql: totals }];
