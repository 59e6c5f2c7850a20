import type { Database } from '@sluice/db';
import type { ActivityRow, DerivedBatch } from '../../src/derive/index.js';
import { withCopyTransaction, writeBatch } from '../../src/store/index.js';
import {
  insertPriceHistory,
  type PricePoint,
  upsertTokenPrices,
} from '../../src/store/pricing/price-writer.js';

/** One movement of a synthetic block: an ERC20 transfer, or native value when `token` is null. */
export interface SyntheticTransfer {
  from: string;
  to: string;
  token: string | null;
  value: bigint;
}

/** Where a synthetic chain's store stands (its checkpoint). */
export interface SyntheticTip {
  block: bigint;
  hash: string;
}

export const syntheticHash = (chainId: number, block: bigint, salt = '') =>
  `0x${Buffer.from(`${chainId}:${block}:${salt}`).toString('hex').padEnd(64, '0').slice(0, 64)}`;

/**
 * A derived batch of one block with the given transfers, as the indexer's derive stage would
 * produce it (activity rows for both sides, ERC20 deltas, native touches), and the native
 * balances the indexer would have read at its end.
 */
export function syntheticBatch(opts: {
  chainId: number;
  tip: SyntheticTip;
  time: Date;
  transfers: readonly SyntheticTransfer[];
  nativeBalances?: ReadonlyMap<string, bigint>;
  salt?: string;
}): { batch: DerivedBatch; nativeBalances: Map<string, bigint>; hash: string } {
  const number = opts.tip.block + 1n;
  const hash = syntheticHash(opts.chainId, number, opts.salt);
  const activity: ActivityRow[] = [];
  const erc20Deltas: DerivedBatch['erc20Deltas'] = new Map();
  const nativeTouched = new Set<string>();
  const tokens: DerivedBatch['tokens'] = new Map();
  opts.transfers.forEach((t, i) => {
    const txHash = syntheticHash(opts.chainId, number, `${opts.salt ?? ''}tx${i}`);
    const base = {
      blockNumber: number,
      blockTime: opts.time,
      txIndex: i,
      logIndex: t.token ? 0 : -1,
      txHash,
      assetType: t.token ? ('erc20' as const) : ('native' as const),
      tokenAddress: t.token,
      from: t.from,
      to: t.to,
      value: t.value,
      tokenId: null,
      extra: null,
    };
    activity.push({ ...base, wallet: t.from, subIndex: 0, type: 'send' });
    activity.push({ ...base, wallet: t.to, subIndex: 1, type: 'receive' });
    if (!t.token) {
      nativeTouched.add(t.from).add(t.to);
      return;
    }
    tokens.set(t.token, { hint: 'erc20', firstBlock: number });
    for (const [wallet, delta] of [
      [t.from, -t.value],
      [t.to, t.value],
    ] as const) {
      const key = `${wallet}|${t.token}`;
      const d = erc20Deltas.get(key);
      if (d) d.delta += delta;
      else erc20Deltas.set(key, { wallet, token: t.token, delta, block: number, sent: delta < 0n });
    }
  });
  const batch: DerivedBatch = {
    fromBlock: number,
    toBlock: number,
    blocks: [
      { number, hash, parentHash: opts.tip.hash, time: opts.time, txCount: opts.transfers.length },
    ],
    txs: [],
    logs: [],
    activity,
    erc20Deltas,
    nativeTouched,
    nft721: new Map(),
    nft1155: new Map(),
    tokens,
    nfts: new Map(),
    metadataRefresh: [],
    poolEvents: [],
    sales: [],
    wrapperMoves: [],
    eventCount: activity.length,
  };
  const nativeBalances = new Map<string, bigint>();
  for (const wallet of nativeTouched)
    nativeBalances.set(wallet, opts.nativeBalances?.get(wallet) ?? 0n);
  return { batch, nativeBalances, hash };
}

/**
 * Commits one synthetic block through the indexer's own write path (`writeBatch`, checkpoint
 * compare-and-set, change notification); returns the new tip.
 *
 * @example
 * tip = await commitSyntheticBlock(db, 1, tip, [{ from, to, token: null, value: 1n }], { undo: true });
 */
export async function commitSyntheticBlock(
  db: Database,
  chainId: number,
  tip: SyntheticTip,
  transfers: readonly SyntheticTransfer[],
  opts: {
    /** The checkpoint to compare-and-set against, when it is not `tip` (own block numbers). */
    expected?: SyntheticTip;
    undo?: boolean;
    time?: Date;
    nativeBalances?: ReadonlyMap<string, bigint>;
    salt?: string;
  } = {},
): Promise<SyntheticTip> {
  const built = syntheticBatch({
    chainId,
    tip,
    time: opts.time ?? new Date(),
    transfers,
    nativeBalances: opts.nativeBalances,
    salt: opts.salt,
  });
  return writeSyntheticBatch(db, chainId, built, opts.expected ?? tip, opts.undo ?? false);
}

/**
 * Writes a batch `syntheticBatch` built (ahead of time, say, as the indexer derives the next
 * batch while the last one is written) through the indexer's write path; returns the new tip.
 *
 * @example
 * const next = syntheticBatch({ chainId: 1, tip, time, transfers });
 * tip = await writeSyntheticBatch(db, 1, next, tip, false);
 */
export async function writeSyntheticBatch(
  db: Database,
  chainId: number,
  built: ReturnType<typeof syntheticBatch>,
  expected: SyntheticTip,
  undo: boolean,
): Promise<SyntheticTip> {
  const { batch, nativeBalances, hash } = built;
  await withCopyTransaction(db, (tx) =>
    writeBatch(tx, {
      chainId,
      batch,
      expected,
      nativeBalances,
      newTokens: [],
      pools: { created: [], changed: [], states: [] },
      undo,
      pruneUndoBelow: 0n,
      headBlock: batch.toBlock,
      backfillDone: true,
      storeLogs: 'none',
    }),
  );
  return { block: batch.toBlock, hash };
}

/** Starts a synthetic chain's checkpoint at `block` (ready, caught up). */
export async function startSyntheticChain(
  db: Database,
  chainId: number,
  block: bigint,
): Promise<SyntheticTip> {
  const hash = syntheticHash(chainId, block);
  await db.query(
    `insert into checkpoints (chain_id, indexed_block, indexed_hash, indexed_time, head_block, backfill_done, updated_at)
     values ($1, $2, $3, now(), $2, true, now())
     on conflict (chain_id) do update set indexed_block = excluded.indexed_block,
       indexed_hash = excluded.indexed_hash, head_block = excluded.head_block, backfill_done = true,
       updated_at = now()`,
    [chainId, block.toString(), hash],
  );
  await db.query(
    `insert into blocks (chain_id, number, hash, parent_hash, timestamp, tx_count)
     values ($1, $2, $3, '0x', now(), 0) on conflict do nothing`,
    [chainId, block.toString(), hash],
  );
  return { block, hash };
}

/** A USD-quoted price of `token` (no pool), as the pricing worker computes one. */
export function syntheticPricePoint(
  token: string,
  blockNumber: bigint,
  time: Date,
  priceUsd: number,
  poolSize: number,
): PricePoint {
  return {
    token,
    blockNumber,
    time,
    price: {
      token,
      priceUsd,
      poolSize,
      lowLiquidity: false,
      pool: null,
      quote: 'usd',
      priceInQuote: priceUsd,
      quoteLiquidity: poolSize,
      route: [],
    },
  };
}

/**
 * Commits price points through the pricing worker's writer (history and current prices, one
 * transaction), so the price tables' change triggers fire as they do in production.
 *
 * @example
 * await commitPrices(db, 1, [syntheticPricePoint(token, 10n, new Date(), 2.5, 60_000)]);
 */
export async function commitPrices(
  db: Database,
  chainId: number,
  points: readonly PricePoint[],
): Promise<void> {
  await db.transaction(async (tx) => {
    await insertPriceHistory(tx, chainId, points);
    await upsertTokenPrices(tx, chainId, points, []);
  });
}
