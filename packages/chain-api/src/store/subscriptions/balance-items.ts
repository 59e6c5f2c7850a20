import type { DerivedBatch } from '../../derive/index.js';
import { usdValue } from '../../shape/format.js';
import type { ItemChain } from './event-items.js';
import {
  type BlockItems,
  type ItemPrice,
  type ItemToken,
  type LogoOf,
  passes,
  type WebhookWatch,
} from './webhook-watch.js';

/** Balances of (wallet, asset) pairs: `native` or the token address as the asset. */
export type PairBalances = ReadonlyMap<string, bigint>;

/** Key of a (wallet, asset) pair in {@link PairBalances}. */
export const pairKey = (wallet: string, asset: string) => `${wallet}|${asset}`;

/**
 * Balances of watched pairs read from the node at blocks inside a batch (before its last block),
 * by {@link pairKey} then block: where the pair moved. Lets a batch of several blocks have one
 * item per block in which the pair changed.
 */
export type BalanceSteps = ReadonlyMap<string, ReadonlyMap<bigint, bigint>>;

/**
 * Balances of watched wallets whose rows the store does not keep (wallets mode, an untracked
 * wallet), read from the node: they replace whatever the store holds for those wallets.
 */
export interface NodeBalances {
  wallets: ReadonlySet<string>;
  /** At the block before the batch, by {@link pairKey}. */
  before: PairBalances;
  /** At the batch's last block, by {@link pairKey}. */
  after: PairBalances;
}

/**
 * The store's balances of the batch's pairs with those of `node.wallets` taken from the node.
 *
 * @example
 * const before = withNodeBalances(watch.before, unstored, 'before');
 */
export function withNodeBalances(
  stored: PairBalances,
  node: NodeBalances | undefined,
  side: 'before' | 'after',
): PairBalances {
  if (!node) return stored;
  const out = new Map(
    [...stored].filter(([key]) => !node.wallets.has(key.slice(0, key.indexOf('|')))),
  );
  for (const [key, amount] of node[side]) out.set(key, amount);
  return out;
}

/** What the balances items are built from: the stored balances around the batch. */
export interface BalanceInputs {
  /** At the block before the batch (the store before it was written); absent: never seen. */
  before: PairBalances;
  /** At the batch's last block (the store after it was written). */
  after: PairBalances;
  tokens: ReadonlyMap<string, ItemToken>;
  /** Current prices by asset (`native` or token address). */
  prices: ReadonlyMap<string, ItemPrice>;
  /** The node's balances inside the batch (absent for a pair: one item for the whole batch). */
  steps?: BalanceSteps | undefined;
  /** Logos as the read endpoints show them (token list, chain registry). */
  logoOf?: LogoOf | undefined;
}

/** The (wallet, asset) pairs of the batch whose balance may have changed, in first-seen order. */
export function touchedPairs(batch: DerivedBatch): { wallet: string; asset: string }[] {
  const seen = new Map<string, { wallet: string; asset: string }>();
  const add = (wallet: string, asset: string) => {
    const key = pairKey(wallet, asset);
    if (!seen.has(key)) seen.set(key, { wallet, asset });
  };
  for (const wallet of batch.nativeTouched) add(wallet, 'native');
  for (const d of batch.erc20Deltas.values()) add(d.wallet, d.token);
  for (const m of batch.wrapperMoves) add(m.wallet, m.token);
  return [...seen.values()];
}

/** USD value as the balances endpoint computes it (exact scaling before the float multiply). */
function usd(amount: bigint, decimals: number | null, price: number | null): number | undefined {
  if (price === null || decimals === null) return undefined;
  return usdValue(amount.toString(), decimals, price);
}

/**
 * The last movement of `asset` for `wallet` in blocks `after+1..upTo` of the batch: its
 * transaction and counterparty.
 */
function lastMove(
  batch: DerivedBatch,
  wallet: string,
  asset: string,
  after: bigint,
  upTo: bigint,
): { hash: string; counterparty: string | null } | undefined {
  const within = (block: bigint) => block > after && block <= upTo;
  for (let i = batch.activity.length - 1; i >= 0; i--) {
    const row = batch.activity[i]!;
    if (!within(row.blockNumber)) continue;
    if (row.wallet !== wallet || row.value === null || row.value === 0n) continue;
    const matches = asset === 'native' ? row.assetType === 'native' : row.tokenAddress === asset;
    if (!matches) continue;
    return { hash: row.txHash, counterparty: row.from === wallet ? row.to : row.from };
  }
  // A native change with no value moved: the gas of the wallet's last transaction.
  for (let i = batch.txs.length - 1; i >= 0; i--) {
    const tx = batch.txs[i]!;
    if (!within(tx.blockNumber)) continue;
    if (tx.from === wallet || tx.to === wallet) {
      return { hash: tx.hash, counterparty: tx.from === wallet ? tx.to : tx.from };
    }
  }
  return undefined;
}

/** The pair's balance at each block of the batch it is known at, ending at the last block. */
function pointsOf(
  steps: ReadonlyMap<bigint, bigint> | undefined,
  last: bigint,
  after: bigint,
): { block: bigint; amount: bigint }[] {
  const points = [...(steps ?? [])]
    .filter(([block]) => block < last)
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([block, amount]) => ({ block, amount }));
  points.push({ block: last, amount: after });
  return points;
}

/**
 * The `balances` items of one webhook for a batch: one per watched (wallet, asset) and block in
 * which its balance changed (`amount_before` / `amount_after` equal `eth_getBalance` /
 * `balanceOf` at the block before and at the block), with that block's last transaction that
 * moved it. Inside a batch of several blocks the balances come from `inputs.steps` (read from the
 * node in the prepare stage); a pair without them gets one item at the batch's last block.
 */
export function balanceItems(
  chain: ItemChain,
  batch: DerivedBatch,
  watch: WebhookWatch,
  inputs: BalanceInputs,
): BlockItems[] {
  const last = batch.blocks[batch.blocks.length - 1];
  if (!last) return [];
  const byBlock = new Map<bigint, Record<string, unknown>[]>();
  for (const { wallet, asset } of touchedPairs(batch)) {
    if (!watch.addresses.has(wallet)) continue;
    const native = asset === 'native';
    if (!passes(watch.assetType, native ? 'native' : 'erc20')) continue;
    if (!passes(watch.tokenAddress, asset)) continue;
    const key = pairKey(wallet, asset);
    const after = inputs.after.get(key);
    if (after === undefined) continue;
    let before = inputs.before.get(key) ?? (native ? undefined : 0n);
    let prevBlock = batch.fromBlock - 1n;
    for (const point of pointsOf(inputs.steps?.get(key), last.number, after)) {
      if (before === point.amount) {
        prevBlock = point.block;
        continue;
      }
      const move = lastMove(batch, wallet, asset, prevBlock, point.block);
      if (passes(watch.counterparty, move?.counterparty ?? null)) {
        const item = balanceItem(
          chain,
          inputs,
          { wallet, asset, move, block: point.block },
          {
            before,
            after: point.amount,
          },
        );
        const list = byBlock.get(point.block) ?? [];
        list.push(item);
        byBlock.set(point.block, list);
      }
      before = point.amount;
      prevBlock = point.block;
    }
  }
  const hashes = new Map(batch.blocks.map((b) => [b.number, b.hash]));
  return [...byBlock]
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([block, items]) => ({
      webhookId: watch.id,
      blockNumber: block,
      blockHash: hashes.get(block) ?? last.hash,
      items,
    }));
}

/** One balances item: a pair's change at one block. */
function balanceItem(
  chain: ItemChain,
  inputs: BalanceInputs,
  at: {
    wallet: string;
    asset: string;
    move: { hash: string; counterparty: string | null } | undefined;
    block: bigint;
  },
  amounts: { before: bigint | undefined; after: bigint },
): Record<string, unknown> {
  const { wallet, asset, move } = at;
  const { before, after } = amounts;
  const native = asset === 'native';
  const token = native ? null : inputs.tokens.get(asset);
  const decimals = native ? chain.nativeDecimals : (token?.decimals ?? null);
  const price = inputs.prices.get(asset);
  const item: Record<string, unknown> = {
    subscribed_address: wallet,
    counterparty_address: move?.counterparty ?? null,
    direction: before === undefined || after >= before ? 'in' : 'out',
    amount_before: before === undefined ? null : before.toString(),
    amount_after: after.toString(),
    amount_delta: before === undefined ? null : (after - before).toString(),
    transaction_hash: move?.hash ?? null,
    block_number: Number(at.block),
  };
  const priceUsd = price?.priceUsd ?? null;
  if (priceUsd !== null) {
    item.price_usd = priceUsd;
    if (before !== undefined) item.value_before_usd = usd(before, decimals, priceUsd);
    item.value_after_usd = usd(after, decimals, priceUsd);
    if (before !== undefined) item.value_delta_usd = usd(after - before, decimals, priceUsd);
  }
  item.asset = {
    token_address: asset,
    symbol: native ? chain.nativeSymbol : (token?.symbol ?? null),
    name: native ? chain.nativeName : (token?.name ?? null),
    decimals,
    // As the balances endpoint: the pricing row's flag; a token without one has no pool (low).
    low_liquidity: price ? price.lowLiquidity : !native,
    pool_size_usd: price?.poolSize ?? null,
    // As the balances endpoint: the token list's logo, the registry's for the native coin.
    token_metadata: {
      logo:
        inputs.logoOf?.(asset) ?? (native ? (chain.nativeLogoUrl ?? chain.logoUrl ?? null) : null),
    },
  };
  return item;
}
