import type { Queryable } from '@sluice/db';
import type { PoolState, PoolStateRow, TokenMetadata } from '../derive/index.js';
import { bulkInsert } from './bulk-insert.js';

const s = (v: bigint | number) => v.toString();
const n = (v: bigint | null) => (v === null ? null : s(v));

/**
 * Upserts `pools` rows: `update` moves the state columns of existing rows (the indexer's batches),
 * `ignore` keeps rows already there (the wallets-mode bootstrap, which must not overwrite a state
 * the follower wrote after its read).
 *
 * @example
 * await writePoolRows(tx, 1, created, 'ignore');
 */
export async function writePoolRows(
  tx: Queryable,
  chainId: number,
  pools: readonly PoolState[],
  existing: 'update' | 'ignore',
): Promise<void> {
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

/**
 * Inserts `tokens` rows for newly seen tokens (metadata as fetched, `first_block` per token);
 * rows already there are kept.
 *
 * @example
 * await writeNewTokens(tx, 1, tokens, (t) => firstSeen.get(t.address) ?? fromBlock);
 */
export async function writeNewTokens(
  tx: Queryable,
  chainId: number,
  tokens: readonly TokenMetadata[],
  firstBlock: (token: TokenMetadata) => bigint,
): Promise<void> {
  const fetchedAt = new Date().toISOString();
  await bulkInsert(
    tx,
    'tokens',
    [
      ['chain_id', 'int4'],
      ['address', 'text'],
      ['standard', 'text'],
      ['name', 'text'],
      ['symbol', 'text'],
      ['decimals', 'int2'],
      ['status', 'text'],
      ['first_block', 'int8'],
      ['fetched_at', 'timestamptz'],
    ],
    tokens.map((t) => [
      chainId,
      t.address,
      t.standard,
      t.name,
      t.symbol,
      t.decimals,
      t.status,
      s(firstBlock(t)),
      fetchedAt,
    ]),
    'on conflict (chain_id, address) do nothing',
  );
}
