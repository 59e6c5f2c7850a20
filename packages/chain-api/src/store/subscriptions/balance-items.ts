import type { DerivedBatch } from '../../derive/index.js';
import { usdValue } from '../../shape/format.js';
import type { ItemChain } from './event-items.js';
import {
  type BlockItems,
  type ItemPrice,
  type ItemToken,
  passes,
  type WebhookWatch,
} from './webhook-watch.js';

/** Balances of (wallet, asset) pairs: `native` or the token address as the asset. */
export type PairBalances = ReadonlyMap<string, bigint>;

/** Key of a (wallet, asset) pair in {@link PairBalances}. */
export const pairKey = (wallet: string, asset: string) => `${wallet}|${asset}`;

/** What the balances items are built from: the stored balances around the batch. */
export interface BalanceInputs {
  /** At the block before the batch (the store before it was written); absent: never seen. */
  before: PairBalances;
  /** At the batch's last block (the store after it was written). */
  after: PairBalances;
  tokens: ReadonlyMap<string, ItemToken>;
  /** Current prices by asset (`native` or token address). */
  prices: ReadonlyMap<string, ItemPrice>;
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

/** The last movement of `asset` for `wallet` in the batch: its transaction and counterparty. */
function lastMove(
  batch: DerivedBatch,
  wallet: string,
  asset: string,
): { hash: string; counterparty: string | null } | undefined {
  for (let i = batch.activity.length - 1; i >= 0; i--) {
    const row = batch.activity[i]!;
    if (row.wallet !== wallet || row.value === null || row.value === 0n) continue;
    const matches = asset === 'native' ? row.assetType === 'native' : row.tokenAddress === asset;
    if (!matches) continue;
    return { hash: row.txHash, counterparty: row.from === wallet ? row.to : row.from };
  }
  // A native change with no value moved: the gas of the wallet's last transaction.
  for (let i = batch.txs.length - 1; i >= 0; i--) {
    const tx = batch.txs[i]!;
    if (tx.from === wallet || tx.to === wallet) {
      return { hash: tx.hash, counterparty: tx.from === wallet ? tx.to : tx.from };
    }
  }
  return undefined;
}

/**
 * The `balances` items of one webhook for a batch: one per watched (wallet, asset) whose balance
 * differs between the block before the batch and its last block (`amount_before` / `amount_after`
 * equal `eth_getBalance` / `balanceOf` there), with the batch's last transaction that moved it.
 * At the head a batch is one block; a backfill batch's items cover its whole range.
 */
export function balanceItems(
  chain: ItemChain,
  batch: DerivedBatch,
  watch: WebhookWatch,
  inputs: BalanceInputs,
): BlockItems[] {
  const last = batch.blocks[batch.blocks.length - 1];
  if (!last) return [];
  const items: Record<string, unknown>[] = [];
  for (const { wallet, asset } of touchedPairs(batch)) {
    if (!watch.addresses.has(wallet)) continue;
    const native = asset === 'native';
    if (!passes(watch.assetType, native ? 'native' : 'erc20')) continue;
    if (!passes(watch.tokenAddress, asset)) continue;
    const after = inputs.after.get(pairKey(wallet, asset));
    if (after === undefined) continue;
    const before = inputs.before.get(pairKey(wallet, asset)) ?? (native ? undefined : 0n);
    if (before === after) continue;
    const move = lastMove(batch, wallet, asset);
    if (!passes(watch.counterparty, move?.counterparty ?? null)) continue;
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
      block_number: Number(last.number),
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
      // The native coin's logo is the registry's; token logos come from the token list, an API lookup.
      token_metadata: { logo: native ? (chain.nativeLogoUrl ?? chain.logoUrl ?? null) : null },
    };
    items.push(item);
  }
  if (items.length === 0) return [];
  return [{ webhookId: watch.id, blockNumber: last.number, blockHash: last.hash, items }];
}
