import { BaseError } from '../errors/index.js';
import type { ChainCapabilities, RpcClient } from '../rpc/index.js';
import type { CallFrame, FetchedBlock, RpcBlockWithTxs, RpcReceipt } from '../rpc/rpc-types.js';
import { fetchRangeTraces } from './range-traces.js';

/** The fetched blocks don't form one chain (a reorg happened while fetching): fetch again. */
export class InconsistentRangeError extends BaseError<'RANGE_INCONSISTENT'> {
  override name = 'InconsistentRangeError';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: 'RANGE_INCONSISTENT', cause: options.cause });
  }
}

const hex = (n: bigint) => `0x${n.toString(16)}`;

function isBlock(r: unknown): boolean {
  if (typeof r !== 'object' || r === null) return false;
  const b = r as Partial<RpcBlockWithTxs>;
  return (
    typeof b.hash === 'string' &&
    typeof b.parentHash === 'string' &&
    typeof b.number === 'string' &&
    typeof b.timestamp === 'string' &&
    Array.isArray(b.transactions) &&
    b.transactions.every((t) => typeof t === 'object' && t !== null)
  );
}

function isReceipt(r: unknown): boolean {
  if (typeof r !== 'object' || r === null) return false;
  const x = r as Partial<RpcReceipt>;
  return (
    typeof x.transactionHash === 'string' &&
    typeof x.blockHash === 'string' &&
    Array.isArray(x.logs)
  );
}

/**
 * Fetches blocks `from..to` with full transactions, their receipts (eth_getBlockReceipts when the
 * node has it, else per transaction) and call traces (when supported; `fetchRangeTraces`), in
 * JSON-RPC batches.
 * Checks that receipts and traces belong to the same block hashes and that the range links by
 * parent hash; throws InconsistentRangeError otherwise so the caller refetches.
 *
 * @example
 * const blocks = await fetchRange(rpc, caps, 100n, 124n);
 */
export async function fetchRange(
  rpc: RpcClient,
  caps: ChainCapabilities,
  from: bigint,
  to: bigint,
): Promise<FetchedBlock[]> {
  const numbers: bigint[] = [];
  for (let n = from; n <= to; n++) numbers.push(n);
  const blocksP = rpc.batch<RpcBlockWithTxs>(
    numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), true] })),
    { validate: isBlock },
  );
  const receiptsP: Promise<RpcReceipt[][]> = caps.blockReceipts
    ? rpc.batch<RpcReceipt[]>(
        numbers.map((n) => ({ method: 'eth_getBlockReceipts', params: [hex(n)] })),
        { validate: (r) => Array.isArray(r) && r.every(isReceipt) },
      )
    : blocksP.then(async (blocks) => {
        const all = await rpc.batch<RpcReceipt>(
          blocks.flatMap((b) =>
            b.transactions.map((t) => ({ method: 'eth_getTransactionReceipt', params: [t.hash] })),
          ),
          { validate: isReceipt },
        );
        let k = 0;
        return blocks.map((b) => b.transactions.map(() => all[k++] as RpcReceipt));
      });
  // Traces wait for the receipts: a transaction that ran no code needs none.
  const tracesP: Promise<CallFrame[][] | undefined> = caps.traces
    ? Promise.all([blocksP, receiptsP]).then(([blocks, receipts]) =>
        fetchRangeTraces(rpc, caps, blocks, receipts),
      )
    : Promise.resolve(undefined);
  const [blocks, receipts, traces] = await Promise.all([blocksP, receiptsP, tracesP]);

  const out: FetchedBlock[] = [];
  blocks.forEach((block, i) => {
    const rs = receipts[i] ?? [];
    const ts = traces?.[i];
    if (BigInt(block.number) !== numbers[i]) {
      throw new InconsistentRangeError(`asked block ${numbers[i]}, got ${BigInt(block.number)}`);
    }
    if (rs.length !== block.transactions.length) {
      throw new InconsistentRangeError(
        `block ${numbers[i]}: ${rs.length} receipts for ${block.transactions.length} txs`,
      );
    }
    const sorted = [...rs].sort((a, b) =>
      Number(BigInt(a.transactionIndex) - BigInt(b.transactionIndex)),
    );
    sorted.forEach((r, k) => {
      const tx = block.transactions[k];
      if (
        !tx ||
        r.blockHash.toLowerCase() !== block.hash.toLowerCase() ||
        r.transactionHash.toLowerCase() !== tx.hash.toLowerCase()
      ) {
        throw new InconsistentRangeError(`block ${numbers[i]}: receipt ${k} is from another block`);
      }
    });
    if (ts && ts.length !== block.transactions.length) {
      throw new InconsistentRangeError(
        `block ${numbers[i]}: ${ts.length} traces for ${block.transactions.length} txs`,
      );
    }
    const prev = out[i - 1];
    if (prev && prev.block.hash.toLowerCase() !== block.parentHash.toLowerCase()) {
      throw new InconsistentRangeError(`block ${numbers[i]} does not link to ${numbers[i - 1]}`);
    }
    out.push({ block, receipts: sorted, traces: ts });
  });
  return out;
}
