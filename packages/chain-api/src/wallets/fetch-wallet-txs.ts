import { InconsistentRangeError, unwrapTrace } from '../ingest/fetch-range.js';
import type { RpcClient } from '../rpc/index.js';
import { RpcResponseError } from '../rpc/rpc-errors.js';
import type { CallFrame, FetchedBlock, RpcReceipt, RpcTx } from '../rpc/rpc-types.js';
import type { TxRef } from './log-ranges.js';

interface RpcTxWithBlock extends RpcTx {
  blockHash: string;
  blockNumber: string;
}

interface RpcHeader {
  number: `0x${string}`;
  hash: `0x${string}`;
  parentHash: `0x${string}`;
  timestamp: `0x${string}`;
  miner: `0x${string}`;
  transactions: string[];
}

const hex = (n: bigint) => `0x${n.toString(16)}`;
const isObject = (r: unknown) => typeof r === 'object' && r !== null;

/**
 * Fetches the transactions `refs` name (transaction, receipt, call trace when `traces`) and their
 * blocks' headers, as FetchedBlocks holding only those transactions (in block order, then index
 * order), so `deriveBatch` turns each into exactly the rows full mode derives from it. Also
 * returns each block's full transaction count. Throws InconsistentRangeError when a receipt or
 * transaction is not in the block the header names (a reorg while fetching: fetch again).
 *
 * @example
 * const { blocks, txCounts } = await fetchWalletTxs(rpc, refs, caps.traces);
 */
export async function fetchWalletTxs(
  rpc: RpcClient,
  refs: readonly TxRef[],
  traces: boolean,
): Promise<{ blocks: FetchedBlock[]; txCounts: Map<bigint, number> }> {
  const hashes = refs.map((r) => r.hash);
  const numbers = [...new Set(refs.map((r) => r.block))].sort((a, b) => (a < b ? -1 : 1));
  const [txs, receipts, framesByTx, headers] = await Promise.all([
    rpc.batch<RpcTxWithBlock>(
      hashes.map((h) => ({ method: 'eth_getTransactionByHash', params: [h] })),
      { validate: isObject },
    ),
    rpc.batch<RpcReceipt>(
      hashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })),
      { validate: isObject },
    ),
    traces
      ? rpc
          .batch<CallFrame>(
            hashes.map((h) => ({
              method: 'debug_traceTransaction',
              params: [h, { tracer: 'callTracer' }],
            })),
            { validate: isObject },
          )
          // A node may refuse to trace a single old transaction while it can replay the whole
          // block (anvil past its in-memory transaction index: -32001 "Resource not found").
          .catch((error: unknown) => {
            if (error instanceof RpcResponseError) return null;
            throw error;
          })
      : Promise.resolve(undefined),
    rpc.batch<RpcHeader>(
      numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), false] })),
      { validate: isObject },
    ),
  ]);
  const frames =
    framesByTx === null ? await traceByBlock(rpc, numbers, txs) : (framesByTx ?? undefined);
  const byBlock = new Map<bigint, { tx: RpcTx; receipt: RpcReceipt; trace?: CallFrame }[]>();
  const headerOf = new Map(headers.map((h) => [BigInt(h.number), h]));
  txs.forEach((tx, i) => {
    const receipt = receipts[i] as RpcReceipt;
    const n = BigInt(tx.blockNumber);
    const header = headerOf.get(n);
    const hash = header?.hash.toLowerCase();
    if (
      !header ||
      tx.blockHash.toLowerCase() !== hash ||
      receipt.blockHash.toLowerCase() !== hash ||
      receipt.transactionHash.toLowerCase() !== tx.hash.toLowerCase()
    ) {
      throw new InconsistentRangeError(`transaction ${tx.hash} moved while fetching`);
    }
    const list = byBlock.get(n) ?? [];
    list.push({ tx, receipt, ...(frames ? { trace: frames[i] as CallFrame } : {}) });
    byBlock.set(n, list);
  });
  const blocks: FetchedBlock[] = [];
  const txCounts = new Map<bigint, number>();
  for (const n of numbers) {
    const header = headerOf.get(n) as RpcHeader;
    const list = (byBlock.get(n) ?? []).sort((a, b) =>
      Number(BigInt(a.tx.transactionIndex) - BigInt(b.tx.transactionIndex)),
    );
    txCounts.set(n, header.transactions.length);
    blocks.push({
      block: {
        number: header.number,
        hash: header.hash,
        parentHash: header.parentHash,
        timestamp: header.timestamp,
        miner: header.miner,
        transactions: list.map((e) => e.tx),
      },
      receipts: list.map((e) => e.receipt),
      traces: frames ? list.map((e) => e.trace as CallFrame) : undefined,
    });
  }
  return { blocks, txCounts };
}

/**
 * The call traces of `txs` from `debug_traceBlockByNumber` of their blocks (what full mode uses),
 * picked by transaction index, in the order of `txs`.
 */
async function traceByBlock(
  rpc: RpcClient,
  numbers: readonly bigint[],
  txs: readonly RpcTxWithBlock[],
): Promise<CallFrame[]> {
  const all = await rpc.batch<unknown[]>(
    numbers.map((n) => ({
      method: 'debug_traceBlockByNumber',
      params: [hex(n), { tracer: 'callTracer' }],
    })),
    { validate: Array.isArray },
  );
  const byNumber = new Map(numbers.map((n, i) => [n, all[i] as unknown[]]));
  return txs.map((tx) => {
    const entry = byNumber.get(BigInt(tx.blockNumber))?.[Number(BigInt(tx.transactionIndex))];
    if (entry === undefined) {
      throw new InconsistentRangeError(
        `no trace for ${tx.hash} in block ${BigInt(tx.blockNumber)}`,
      );
    }
    return unwrapTrace(entry);
  });
}
