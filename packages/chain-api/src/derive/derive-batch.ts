import { decodeLog, decodeUnindexedTransfer } from '../decode/index.js';
import { BaseError, InternalError } from '../errors/index.js';
import type { CallFrame, FetchedBlock, RpcReceipt, RpcTx } from '../rpc/rpc-types.js';
import { applyEvent } from './apply-event.js';
import { senderRows } from './call-rows.js';
import type { DeriveContext } from './derive-context.js';
import type { DerivedBatch } from './derived-batch.js';
import { internalTransfers } from './native-transfers.js';
import { attributeSales } from './nft-sales.js';
import { swapRow } from './swap-row.js';
import { movement, SUB_INTERNAL, SUB_NATIVE, type TxScope, touch } from './tx-scope.js';

export { type DeriveContext, ZERO_ADDRESS } from './derive-context.js';

/**
 * Turns fetched blocks into every row the store keeps: blocks, transactions, logs, activity per
 * wallet, ERC20 deltas, NFT moves, pool events, sales. Pure: no I/O, so ranges can be derived
 * concurrently; state-dependent steps (pools, balances) are applied by the writer in block order.
 */
export function deriveBatch(fetched: readonly FetchedBlock[], ctx: DeriveContext): DerivedBatch {
  const first = fetched[0];
  const last = fetched[fetched.length - 1];
  if (!first || !last) throw new InternalError('deriveBatch needs at least one block');
  const out = emptyBatch(BigInt(first.block.number), BigInt(last.block.number));
  for (const fb of fetched) deriveBlock(fb, ctx, out);
  return out;
}

/**
 * A batch with no rows covering `fromBlock..toBlock`.
 *
 * @example
 * const batch = emptyBatch(10n, 10n); // batch.activity.length === 0
 */
export function emptyBatch(fromBlock: bigint, toBlock: bigint): DerivedBatch {
  return {
    fromBlock,
    toBlock,
    blocks: [],
    txs: [],
    logs: [],
    activity: [],
    erc20Deltas: new Map(),
    nativeTouched: new Set(),
    nft721: new Map(),
    nft1155: new Map(),
    tokens: new Map(),
    nfts: new Map(),
    metadataRefresh: [],
    poolEvents: [],
    sales: [],
    wrapperMoves: [],
    eventCount: 0,
  };
}

function deriveBlock(fb: FetchedBlock, ctx: DeriveContext, out: DerivedBatch): void {
  const { block, receipts, traces } = fb;
  const blockNumber = BigInt(block.number);
  const time = new Date(Number(BigInt(block.timestamp)) * 1000);
  out.blocks.push({
    number: blockNumber,
    hash: block.hash.toLowerCase(),
    parentHash: block.parentHash.toLowerCase(),
    time,
    txCount: block.transactions.length,
  });
  touch(out, block.miner.toLowerCase());
  for (const w of block.withdrawals ?? []) touch(out, w.address.toLowerCase());

  block.transactions.forEach((tx, i) => {
    const receipt = receipts[i];
    if (!receipt) {
      throw new BaseError(`missing receipt for tx ${i} of block ${blockNumber}`, {
        code: 'RECEIPT_MISSING',
      });
    }
    const s = txScope(tx, receipt, ctx, out, blockNumber, time);
    nativeRows(s, traces?.[i], traces !== undefined);
    decodeLogs(s, receipt);
    for (const { logIndex, ev } of s.decoded) {
      out.eventCount++;
      applyEvent(s, ev, logIndex);
    }
    senderRows(s, tx, swapRow(s));
    salesOf(s);
    for (const r of s.rows) out.activity.push(r);
  });
}

/** The transaction's row and the scope its steps share. */
function txScope(
  tx: RpcTx,
  receipt: RpcReceipt,
  ctx: DeriveContext,
  out: DerivedBatch,
  blockNumber: bigint,
  time: Date,
): TxScope {
  const txIndex = Number(tx.transactionIndex);
  const from = tx.from.toLowerCase();
  const to = tx.to ? tx.to.toLowerCase() : null;
  const created = receipt.contractAddress ? receipt.contractAddress.toLowerCase() : null;
  const status = receipt.status === undefined ? 1 : Number(BigInt(receipt.status));
  const value = BigInt(tx.value);
  const input = tx.input ?? '0x';
  const txHash = tx.hash.toLowerCase();
  out.txs.push({
    blockNumber,
    txIndex,
    hash: txHash,
    from,
    to,
    contractAddress: created,
    value,
    selector: input.length >= 10 ? input.slice(0, 10).toLowerCase() : null,
    input,
    status,
    gasUsed: BigInt(receipt.gasUsed),
    effectiveGasPrice: receipt.effectiveGasPrice ? BigInt(receipt.effectiveGasPrice) : null,
  });
  touch(out, from);
  if (to) touch(out, to);
  if (created) touch(out, created);
  return {
    out,
    ctx,
    blockNumber,
    time,
    txIndex,
    txHash,
    from,
    to,
    created,
    status,
    value,
    input,
    rows: [],
    internal: undefined,
    decoded: [],
    erc20Transfers: [],
    nftTransfers: [],
    swapLogs: [],
    legs: [],
  };
}

/** Native value rows: top-level, then internal transfers from the trace. */
function nativeRows(s: TxScope, trace: CallFrame | undefined, traced: boolean): void {
  const { from, value, status } = s;
  const nativeTarget = s.to ?? s.created;
  if (status === 1 && value > 0n && nativeTarget) {
    movement(s, from, nativeTarget, 'native', -1, SUB_NATIVE, { value });
  }
  if (!s.ctx.traces || !traced) return;
  const internal = status === 1 && trace ? internalTransfers(trace) : [];
  s.internal = internal;
  internal.forEach((t, k) => {
    touch(s.out, t.from);
    touch(s.out, t.to);
    movement(s, t.from, t.to, 'native', -1, SUB_INTERNAL + k, {
      value: t.value,
      extra: { internal: true },
    });
  });
}

/** Keeps every log of the receipt and the decoded ones for the event steps. */
function decodeLogs(s: TxScope, receipt: RpcReceipt): void {
  const { ctx, out, blockNumber, txIndex } = s;
  for (const l of receipt.logs) {
    const logIndex = Number(l.logIndex);
    const address = l.address.toLowerCase() as `0x${string}`;
    const topics = l.topics.map((t) => t.toLowerCase());
    const raw = { address, topics, data: l.data, logIndex, txIndex };
    const ev = decodeLog(raw) ?? (ctx.isErc721 ? decodeUnindexedTransfer(raw, ctx.isErc721) : null);
    out.logs.push({
      blockNumber,
      txIndex,
      logIndex,
      address,
      topics,
      data: l.data,
      decoded: ev !== null,
    });
    if (ev) s.decoded.push({ logIndex, ev });
  }
}

/** NFT sales of a successful transaction that moved NFTs. */
function salesOf(s: TxScope): void {
  if (s.status !== 1 || s.nftTransfers.length === 0) return;
  const sales = attributeSales(
    {
      chainId: s.ctx.chainId,
      blockNumber: s.blockNumber,
      blockTime: s.time,
      txHash: s.txHash,
      from: s.from,
      to: s.to,
      value: s.value,
      nftTransfers: s.nftTransfers,
      erc20Transfers: s.erc20Transfers,
      internalTransfers: s.ctx.traces ? s.internal : undefined,
    },
    s.ctx.paymentTokens,
  );
  s.out.sales.push(...sales);
}

/** Sets ApprovalForAll rows' asset type from the tokens' standards (erc1155 or erc721). */
export function resolveApprovalStandards(
  batch: DerivedBatch,
  standardOf: (token: string) => string | undefined,
): void {
  for (const row of batch.activity) {
    if (row.type === 'approve' && row.extra?.operator === true && row.tokenAddress) {
      row.assetType = standardOf(row.tokenAddress) === 'erc1155' ? 'erc1155' : 'erc721';
    }
  }
}
