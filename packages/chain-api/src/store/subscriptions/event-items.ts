import type { ChainConfig } from '../../chains/chain-config.js';
import type { ActivityRow as DerivedActivity, DerivedBatch, TxRow } from '../../derive/index.js';
import type { ActivityRow } from '../../shape/activity-row.js';
import { priceEligible, priceToken, shapeActivityItem } from '../../shape/activity-shape.js';
import type { LogRow, TransactionRow } from '../../shape/transaction-row.js';
import { shapeTransaction } from '../../shape/transaction-shape.js';
import type { StoreLogs } from '../chain-data.js';
import {
  type BlockItems,
  type ItemPrice,
  type ItemToken,
  type LogoOf,
  passes,
  type WebhookWatch,
} from './webhook-watch.js';

/** The chain fields the items show. */
export type ItemChain = Pick<
  ChainConfig,
  | 'chainId'
  | 'name'
  | 'nativeSymbol'
  | 'nativeName'
  | 'nativeDecimals'
  | 'nativeLogoUrl'
  | 'logoUrl'
>;

const txKey = (block: bigint, index: number) => `${block}:${index}`;
const seconds = (time: Date) => Math.floor(time.getTime() / 1000);

/** The batch's transactions by block and index, and their logs. */
export function indexBatch(batch: DerivedBatch): {
  txs: Map<string, TxRow>;
  logs: Map<string, DerivedBatchLog[]>;
  hashes: Map<bigint, string>;
  times: Map<bigint, Date>;
} {
  const txs = new Map(batch.txs.map((tx) => [txKey(tx.blockNumber, tx.txIndex), tx]));
  const logs = new Map<string, DerivedBatchLog[]>();
  for (const log of batch.logs) {
    const key = txKey(log.blockNumber, log.txIndex);
    const list = logs.get(key) ?? [];
    list.push(log);
    logs.set(key, list);
  }
  const hashes = new Map(batch.blocks.map((b) => [b.number, b.hash]));
  const times = new Map(batch.blocks.map((b) => [b.number, b.time]));
  return { txs, logs, hashes, times };
}

type DerivedBatchLog = DerivedBatch['logs'][number];
type BatchIndex = ReturnType<typeof indexBatch>;

/** Groups items per block in chain order (items already sorted). */
function perBlock(
  webhookId: string,
  entries: readonly { block: bigint; item: Record<string, unknown> }[],
  index: BatchIndex,
): BlockItems[] {
  const out: BlockItems[] = [];
  for (const { block, item } of entries) {
    const last = out[out.length - 1];
    if (last && last.blockNumber === block) last.items.push(item);
    else {
      out.push({
        webhookId,
        blockNumber: block,
        blockHash: index.hashes.get(block) ?? '',
        items: [item],
      });
    }
  }
  return out;
}

function ref(tokens: ReadonlyMap<string, ItemToken>, address: unknown): ItemToken | null {
  return typeof address === 'string' ? (tokens.get(address) ?? null) : null;
}

/** A derived activity row as the activity endpoint's stored row. */
function storedActivity(
  chainId: number,
  row: DerivedActivity,
  tokens: ReadonlyMap<string, ItemToken>,
): ActivityRow {
  const extra = row.extra;
  return {
    chain_id: chainId,
    block_number: row.blockNumber.toString(),
    block_time: seconds(row.blockTime),
    tx_index: row.txIndex,
    log_index: row.logIndex,
    sub_index: row.subIndex,
    tx_hash: row.txHash,
    type: row.type,
    asset_type: row.assetType,
    token_address: row.tokenAddress,
    from_address: row.from,
    to_address: row.to,
    value: row.value === null ? null : row.value.toString(),
    token_id: row.tokenId === null ? null : row.tokenId.toString(),
    extra,
    token: ref(tokens, row.tokenAddress),
    from_token: ref(tokens, extra?.from_token_address),
    to_token: ref(tokens, extra?.to_token_address),
    current_price: null,
    pool_size: null,
  };
}

const activityOrder = (a: DerivedActivity, b: DerivedActivity) =>
  a.blockNumber !== b.blockNumber
    ? a.blockNumber < b.blockNumber
      ? -1
      : 1
    : a.txIndex - b.txIndex || a.logIndex - b.logIndex || a.subIndex - b.subIndex;

/**
 * The `activities` items of one webhook: each activity row of a watched wallet that passes the
 * filters, shaped and priced as the activity endpoint shapes and prices it at the head, plus the transaction's `tx_from`, `tx_to`,
 * `tx_value` and, for calls, `call_type` and `data`.
 */
export function activityItems(
  chain: ItemChain,
  batch: DerivedBatch,
  index: BatchIndex,
  watch: WebhookWatch,
  tokens: ReadonlyMap<string, ItemToken>,
  prices: ReadonlyMap<string, ItemPrice>,
  logoOf?: LogoOf,
): BlockItems[] {
  const rows = batch.activity.filter((row) => {
    if (!watch.addresses.has(row.wallet)) return false;
    const other = row.from === row.wallet ? row.to : row.from;
    return (
      passes(watch.counterparty, other) &&
      passes(watch.activityType, row.type) &&
      passes(watch.assetType, row.assetType) &&
      passes(watch.tokenAddress, row.tokenAddress)
    );
  });
  rows.sort(activityOrder);
  const entries = rows.map((row) => {
    const stored = storedActivity(chain.chainId, row, tokens);
    // The current price, as the activity endpoint shows a row with no older price point.
    const price = priceEligible(stored) ? prices.get(priceToken(stored)) : undefined;
    const item = shapeActivityItem(
      stored,
      chain,
      price && price.priceUsd !== null
        ? { price_usd: price.priceUsd, pool_size: price.poolSize }
        : undefined,
      logoOf,
    );
    item.address = row.wallet;
    const tx = index.txs.get(txKey(row.blockNumber, row.txIndex));
    if (tx) {
      item.tx_from = tx.from;
      item.tx_to = tx.to ?? tx.contractAddress;
      item.tx_value = tx.value.toString();
    }
    if (row.type === 'call') {
      item.call_type = row.from === row.wallet ? 'outgoing' : 'incoming';
      if (tx) item.data = tx.input;
    }
    return { block: row.blockNumber, item };
  });
  return perBlock(watch.id, entries, index);
}

function storedTransaction(chainId: number, tx: TxRow, index: BatchIndex): TransactionRow {
  return {
    chain_id: chainId,
    block_number: tx.blockNumber.toString(),
    block_time: seconds(index.times.get(tx.blockNumber) ?? new Date(0)),
    block_hash: index.hashes.get(tx.blockNumber) ?? '',
    tx_index: tx.txIndex,
    hash: tx.hash,
    from_address: tx.from,
    to_address: tx.to,
    contract_address: tx.contractAddress,
    value: tx.value.toString(),
    data: tx.input,
    status: tx.status,
    gas_used: tx.gasUsed.toString(),
    effective_gas_price: tx.effectiveGasPrice === null ? null : tx.effectiveGasPrice.toString(),
  };
}

function storedLog(chainId: number, log: DerivedBatchLog): LogRow {
  return {
    chain_id: chainId,
    block_number: log.blockNumber.toString(),
    tx_index: log.txIndex,
    log_index: log.logIndex,
    address: log.address,
    topic0: log.topics[0] ?? null,
    topic1: log.topics[1] ?? null,
    topic2: log.topics[2] ?? null,
    topic3: log.topics[3] ?? null,
    data: log.data,
  };
}

/**
 * The `transactions` items of one webhook: each transaction a watched address sent (`Sender`) or
 * received (`Receiver`) that passes the filters, shaped as the transactions endpoint shapes it
 * with `decode=true` (with the logs the store keeps), plus `transaction_type`, `effective_gas_price` (hex), `gas_used`, `success`.
 */
export function transactionItems(
  chain: ItemChain,
  batch: DerivedBatch,
  index: BatchIndex,
  watch: WebhookWatch,
  storeLogs: StoreLogs,
): BlockItems[] {
  const entries: { block: bigint; item: Record<string, unknown> }[] = [];
  for (const tx of batch.txs) {
    const to = tx.to ?? tx.contractAddress;
    const sides: [string, 'Sender' | 'Receiver', string | null][] = [];
    if (watch.addresses.has(tx.from) && watch.transactionType !== 'receiver') {
      sides.push([tx.from, 'Sender', to]);
    }
    if (to && to !== tx.from && watch.addresses.has(to) && watch.transactionType !== 'sender') {
      sides.push([to, 'Receiver', tx.from]);
    }
    for (const [address, side, other] of sides) {
      if (!passes(watch.counterparty, other)) continue;
      // The logs the transactions endpoint shows: those the store keeps (`storeLogs`).
      const logs = (index.logs.get(txKey(tx.blockNumber, tx.txIndex)) ?? [])
        .filter((l) => storeLogs === 'all' || (storeLogs === 'undecoded' && !l.decoded))
        .map((l) => storedLog(chain.chainId, l));
      const item = shapeTransaction(
        address,
        storedTransaction(chain.chainId, tx, index),
        logs,
        chain,
        true,
      );
      item.transaction_type = side;
      if (tx.effectiveGasPrice !== null) {
        item.effective_gas_price = `0x${tx.effectiveGasPrice.toString(16)}`;
      }
      entries.push({ block: tx.blockNumber, item });
    }
  }
  entries.sort((a, b) => (a.block < b.block ? -1 : a.block > b.block ? 1 : 0));
  return perBlock(watch.id, entries, index);
}
