import type { Queryable } from '@sluice/db';
import type { PoolState, PoolStateRow } from '../derive/index.js';
import { bulkInsert } from './bulk-insert.js';
import { n, s } from './sql-values.js';
import { recordUndo, type UndoScope } from './undo/record-undo.js';

/** Schema of `pools` and `pool_states` (part of the core migration). */
export const poolsSchema = /* sql */ `
-- DEX pools created by the chain's configured Uniswap v2/v3 factories, with their latest state.
-- v2: reserve0/reserve1 from Sync. v3: sqrt_price_x96/tick/liquidity from Initialize/Swap/Mint/Burn.
create table pools (
  chain_id        integer     not null,
  address         text        not null,
  dex             text        not null check (dex in ('uniswap_v2','uniswap_v3')),
  factory         text        not null,
  token0          text        not null,
  token1          text        not null,
  fee             integer,                      -- v3 fee in hundredths of a bip; v2: null (30 bps)
  tick_spacing    integer,
  created_block   bigint      not null,
  reserve0        numeric,
  reserve1        numeric,
  sqrt_price_x96  numeric,
  tick            integer,
  liquidity       numeric,
  updated_block   bigint,
  updated_time    timestamptz,
  primary key (chain_id, address)
);
create index pools_token0_idx on pools (chain_id, token0);
create index pools_token1_idx on pools (chain_id, token1);

-- Pool state at the end of every block in which it changed (the pricing worker's history input).
create table pool_states (
  chain_id        integer     not null,
  pool            text        not null,
  block_number    bigint      not null,
  block_time      timestamptz not null,
  reserve0        numeric,
  reserve1        numeric,
  sqrt_price_x96  numeric,
  tick            integer,
  liquidity       numeric,
  primary key (chain_id, pool, block_number)
);
create index pool_states_block_idx on pool_states (chain_id, block_number);
`;

/**
 * Upserts `pools` rows: `update` moves the state columns of existing rows (the indexer's batches),
 * `ignore` keeps rows already there (the wallets-mode bootstrap, which must not overwrite a state
 * the follower wrote after its read).
 *
 * @example
 * await writePoolRows(tx, null, 1, created, 'ignore');
 */
export async function writePoolRows(
  tx: Queryable,
  undo: UndoScope | null,
  chainId: number,
  pools: readonly PoolState[],
  existing: 'update' | 'ignore',
): Promise<void> {
  await recordUndo(
    tx,
    undo,
    'pools',
    pools.map((p) => [p.address]),
  );
  await bulkInsert(
    tx,
    'pools',
    [
      ['chain_id', 'int4'],
      ['address', 'text'],
      ['dex', 'text'],
      ['factory', 'text'],
      ['token0', 'text'],
      ['token1', 'text'],
      ['fee', 'int4'],
      ['tick_spacing', 'int4'],
      ['created_block', 'int8'],
      ['reserve0', 'numeric'],
      ['reserve1', 'numeric'],
      ['sqrt_price_x96', 'numeric'],
      ['tick', 'int4'],
      ['liquidity', 'numeric'],
      ['updated_block', 'int8'],
      ['updated_time', 'timestamptz'],
    ],
    pools.map((p) => [
      chainId,
      p.address,
      p.dex,
      p.factory,
      p.token0,
      p.token1,
      p.fee,
      p.tickSpacing,
      s(p.createdBlock),
      n(p.reserve0),
      n(p.reserve1),
      n(p.sqrtPriceX96),
      p.tick,
      n(p.liquidity),
      n(p.updatedBlock),
      p.updatedTime?.toISOString() ?? null,
    ]),
    existing === 'update'
      ? `on conflict (chain_id, address) do update set
           reserve0 = excluded.reserve0, reserve1 = excluded.reserve1,
           sqrt_price_x96 = excluded.sqrt_price_x96, tick = excluded.tick, liquidity = excluded.liquidity,
           updated_block = excluded.updated_block, updated_time = excluded.updated_time`
      : 'on conflict (chain_id, address) do nothing',
  );
}

/**
 * Inserts `pool_states` rows (a pool's state at the end of a block); `onConflict` as the caller
 * needs (none: a duplicate is a bug the primary key reports).
 *
 * @example
 * await writePoolStateRows(tx, 1, states);
 */
export async function writePoolStateRows(
  tx: Queryable,
  chainId: number,
  states: readonly PoolStateRow[],
  onConflict?: string,
): Promise<void> {
  await bulkInsert(
    tx,
    'pool_states',
    [
      ['chain_id', 'int4'],
      ['pool', 'text'],
      ['block_number', 'int8'],
      ['block_time', 'timestamptz'],
      ['reserve0', 'numeric'],
      ['reserve1', 'numeric'],
      ['sqrt_price_x96', 'numeric'],
      ['tick', 'int4'],
      ['liquidity', 'numeric'],
    ],
    states.map((p) => [
      chainId,
      p.pool,
      s(p.block),
      p.time.toISOString(),
      n(p.reserve0),
      n(p.reserve1),
      n(p.sqrtPriceX96),
      p.tick,
      n(p.liquidity),
    ]),
    onConflict,
  );
}
