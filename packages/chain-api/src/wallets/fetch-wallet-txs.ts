import { TraceUnavailableError, traceFailure, unwrapTrace } from '../ingest/block-traces.js';
import { InconsistentRangeError } from '../ingest/fetch-range.js';
import { isMethodNotFound, type RpcClient } from '../rpc/index.js';
import {
  MalformedTraceError,
  type ParityTrace,
  parityBlockFrames,
  parityToCallFrame,
} from '../rpc/parity-trace.js';
import { RpcMalformedResponseError, RpcResponseError } from '../rpc/rpc-errors.js';
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

/** What the node offers beyond per-transaction calls (the chain's probed capabilities). */
export interface FetchCaps {
  traces: boolean;
  blockReceipts: boolean;
}

/**
 * Wallet transactions in a block from which one block trace replaces per-transaction traces:
 * tracing the i-th transaction replays the i before it, so k of n cost ~k·n/2 executions
 * against n for the block (and a 200-transaction block traced one by one is quadratic).
 */
const TRACE_BLOCK_MIN = 4;
/**
 * A block is fetched whole (transactions, and receipts by eth_getBlockReceipts) when the wallet
 * holds at least 1/WHOLE_BLOCK_SHARE of it: one call instead of 2k, at most that many times the bytes.
 */
const WHOLE_BLOCK_SHARE = 4;

const hex = (n: bigint) => `0x${n.toString(16)}`;
const isObject = (r: unknown) => typeof r === 'object' && r !== null;
const lower = (s: string) => s.toLowerCase();

interface Plan {
  n: bigint;
  header: RpcHeader;
  /** Transaction indexes of the wallet's transactions in this block, ascending. */
  indexes: number[];
  whole: boolean;
  traceWhole: boolean;
}

/**
 * Fetches the transactions `refs` name (transaction, receipt, call trace when `caps.traces`) and
 * their blocks' headers, as FetchedBlocks holding only those transactions (in block order, then
 * index order), so `deriveBatch` turns each into exactly the rows full mode derives from it. Also
 * returns each block's full transaction count.
 *
 * Headers come first (they give each block's transaction count and the wallet's indexes in it);
 * then per block the cheaper way: a block where the wallet holds a large share is fetched whole
 * (`eth_getBlockByNumber` with transactions, `eth_getBlockReceipts`) and one with several of its
 * transactions is traced whole (`debug_traceBlockByNumber`, what full mode uses); the rest goes by
 * transaction hash. Throws InconsistentRangeError when anything is not in the block the header
 * names (a reorg while fetching: fetch again).
 *
 * @example
 * const { blocks, txCounts } = await fetchWalletTxs(rpc, refs, caps);
 */
export async function fetchWalletTxs(
  rpc: RpcClient,
  refs: readonly TxRef[],
  caps: FetchCaps,
): Promise<{ blocks: FetchedBlock[]; txCounts: Map<bigint, number> }> {
  const wanted = new Map<bigint, Set<string>>();
  for (const r of refs) {
    const set = wanted.get(r.block) ?? new Set<string>();
    set.add(lower(r.hash));
    wanted.set(r.block, set);
  }
  const numbers = [...wanted.keys()].sort((a, b) => (a < b ? -1 : 1));
  const headers = await rpc.batch<RpcHeader>(
    numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), false] })),
    { validate: (r) => isObject(r) && Array.isArray((r as RpcHeader).transactions) },
  );
  const plans: Plan[] = numbers.map((n, i) => {
    const header = headers[i] as RpcHeader;
    const hashes = wanted.get(n) as Set<string>;
    const indexes: number[] = [];
    header.transactions.forEach((h, k) => {
      if (hashes.has(lower(h))) indexes.push(k);
    });
    if (BigInt(header.number) !== n || indexes.length !== hashes.size) {
      throw new InconsistentRangeError(`block ${n} no longer holds the wallet's transactions`);
    }
    const whole = indexes.length * WHOLE_BLOCK_SHARE >= header.transactions.length;
    return {
      n,
      header,
      indexes,
      whole,
      traceWhole: caps.traces && (whole || indexes.length >= TRACE_BLOCK_MIN),
    };
  });

  const wholes = plans.filter((p) => p.whole);
  const single = plans.filter((p) => !p.whole);
  const singleHashes = (ps: readonly Plan[]) =>
    ps.flatMap((p) => p.indexes.map((k) => p.header.transactions[k] as string));
  const receiptsByHash = caps.blockReceipts ? single : plans;
  const [fullBlocks, txs, blockReceipts, receipts, frames] = await Promise.all([
    rpc.batch<{ hash: string; transactions: RpcTx[] }>(
      wholes.map((p) => ({ method: 'eth_getBlockByNumber', params: [hex(p.n), true] })),
      { validate: (r) => isObject(r) && Array.isArray((r as RpcHeader).transactions) },
    ),
    rpc.batch<RpcTxWithBlock>(
      singleHashes(single).map((h) => ({ method: 'eth_getTransactionByHash', params: [h] })),
      { validate: isObject },
    ),
    caps.blockReceipts
      ? rpc.batch<RpcReceipt[]>(
          wholes.map((p) => ({ method: 'eth_getBlockReceipts', params: [hex(p.n)] })),
          { validate: Array.isArray },
        )
      : Promise.resolve([]),
    rpc.batch<RpcReceipt>(
      singleHashes(receiptsByHash).map((h) => ({
        method: 'eth_getTransactionReceipt',
        params: [h],
      })),
      { validate: isObject },
    ),
    caps.traces ? fetchTraces(rpc, plans) : Promise.resolve(new Map() as Frames),
  ]);

  // Assemble, block by block, in index order.
  const fullOf = new Map(wholes.map((p, i) => [p.n, fullBlocks[i] as (typeof fullBlocks)[0]]));
  const blockReceiptsOf = new Map(wholes.map((p, i) => [p.n, blockReceipts[i] ?? []]));
  const txAt = cursor(txs);
  const receiptAt = cursor(receipts);
  const blocks: FetchedBlock[] = [];
  const txCounts = new Map<bigint, number>();
  for (const p of plans) {
    const hash = lower(p.header.hash);
    const full = fullOf.get(p.n);
    if (full && lower(full.hash) !== hash) {
      throw new InconsistentRangeError(`block ${p.n} changed while fetching`);
    }
    const traces = frames.get(p.n);
    const picked: RpcTx[] = [];
    const pickedReceipts: RpcReceipt[] = [];
    const pickedTraces: CallFrame[] = [];
    for (const k of p.indexes) {
      const txHash = lower(p.header.transactions[k] as string);
      const tx = full ? full.transactions[k] : txAt();
      const receipt =
        full && caps.blockReceipts ? blockReceiptsOf.get(p.n)?.[k] : (receiptAt() as RpcReceipt);
      if (
        !tx ||
        !receipt ||
        lower(tx.hash) !== txHash ||
        (!full && lower((tx as RpcTxWithBlock).blockHash ?? '') !== hash) ||
        lower(receipt.blockHash) !== hash ||
        lower(receipt.transactionHash) !== txHash
      ) {
        throw new InconsistentRangeError(`transaction ${txHash} moved while fetching`);
      }
      picked.push(tx);
      pickedReceipts.push(receipt);
      if (caps.traces) {
        const frame = traces?.get(k);
        if (!frame) throw new InconsistentRangeError(`no trace for ${txHash} in block ${p.n}`);
        pickedTraces.push(frame);
      }
    }
    txCounts.set(p.n, p.header.transactions.length);
    blocks.push({
      block: {
        number: p.header.number,
        hash: p.header.hash,
        parentHash: p.header.parentHash,
        timestamp: p.header.timestamp,
        miner: p.header.miner,
        transactions: picked,
      },
      receipts: pickedReceipts,
      traces: caps.traces ? pickedTraces : undefined,
    });
  }
  return { blocks, txCounts };
}

/** Reads `items` in order, one per call. */
function cursor<T>(items: readonly T[]): () => T | undefined {
  let i = 0;
  return () => items[i++];
}

/** Call trees by block number, then transaction index. */
type Frames = Map<bigint, Map<number, CallFrame>>;

/** Clients whose node answered "method not found" to Parity traces (`trace_*`). */
const noParityTraces = new WeakSet<RpcClient>();

/**
 * The call traces of the wallet's transactions in `plans`: Parity `trace_block` /
 * `trace_transaction` converted to call trees when the node serves them (anvil keeps them in
 * memory: no replay), else `debug_traceBlockByNumber` / `debug_traceTransaction` (callTracer,
 * what full mode reads). Blocks marked `traceWhole` are traced whole either way.
 */
async function fetchTraces(rpc: RpcClient, plans: readonly Plan[]): Promise<Frames> {
  if (!noParityTraces.has(rpc)) {
    try {
      return await parityTraces(rpc, plans);
    } catch (error) {
      if (isMethodNotFound(error)) noParityTraces.add(rpc);
      else if (
        !(
          error instanceof RpcResponseError ||
          error instanceof RpcMalformedResponseError ||
          error instanceof MalformedTraceError
        )
      )
        throw error;
    }
  }
  return debugTraces(rpc, plans);
}

async function parityTraces(rpc: RpcClient, plans: readonly Plan[]): Promise<Frames> {
  const whole = plans.filter((p) => p.traceWhole);
  const single = plans.filter((p) => !p.traceWhole);
  const [blocks, txs] = await Promise.all([
    rpc.batch<ParityTrace[]>(
      whole.map((p) => ({ method: 'trace_block', params: [hex(p.n)] })),
      { validate: Array.isArray },
    ),
    rpc.batch<ParityTrace[]>(
      single.flatMap((p) =>
        p.indexes.map((k) => ({ method: 'trace_transaction', params: [p.header.transactions[k]] })),
      ),
      { validate: (r) => Array.isArray(r) && r.length > 0 },
    ),
  ]);
  const out: Frames = new Map();
  whole.forEach((p, i) => {
    const list = blocks[i] as (ParityTrace & { blockHash?: string })[];
    if (
      list.some(
        (t) => typeof t.blockHash === 'string' && lower(t.blockHash) !== lower(p.header.hash),
      )
    )
      throw new InconsistentRangeError(`block ${p.n} changed while tracing`);
    const all = parityBlockFrames(list, p.header.transactions.length);
    out.set(p.n, new Map(p.indexes.map((k) => [k, all[k] as CallFrame])));
  });
  let at = 0;
  for (const p of single) {
    const m = new Map<number, CallFrame>();
    for (const k of p.indexes) {
      const list = txs[at++] as (ParityTrace & { blockHash?: string })[];
      const hash = lower(p.header.transactions[k] as string);
      if (
        list.some(
          (t) =>
            (typeof t.blockHash === 'string' && lower(t.blockHash) !== lower(p.header.hash)) ||
            (typeof t.transactionHash === 'string' && lower(t.transactionHash) !== hash),
        )
      )
        throw new InconsistentRangeError(`transaction ${hash} moved while tracing`);
      m.set(k, parityToCallFrame(list));
    }
    out.set(p.n, m);
  }
  return out;
}

async function debugTraces(rpc: RpcClient, plans: readonly Plan[]): Promise<Frames> {
  const whole = plans.filter((p) => p.traceWhole);
  const single = plans.filter((p) => !p.traceWhole);
  const [blocks, txs] = await Promise.all([
    traceBlocks(rpc, whole),
    rpc
      .batch<CallFrame>(
        single.flatMap((p) =>
          p.indexes.map((k) => ({
            method: 'debug_traceTransaction',
            params: [p.header.transactions[k], { tracer: 'callTracer' }],
          })),
        ),
        { validate: isObject },
      )
      // A node may refuse to trace a single old transaction while it can replay the whole
      // block (anvil past its in-memory transaction index: -32001 "Resource not found").
      .catch((error: unknown) => {
        if (error instanceof RpcResponseError) return null;
        throw error;
      }),
  ]);
  if (txs === null) {
    for (const [n, m] of await traceBlocks(rpc, single)) blocks.set(n, m);
    return blocks;
  }
  let at = 0;
  for (const p of single) {
    blocks.set(p.n, new Map(p.indexes.map((k) => [k, txs[at++] as CallFrame])));
  }
  return blocks;
}

/**
 * The call traces of the wallet's transactions in `plans`' blocks from `debug_traceBlockByNumber`
 * (what full mode uses); checked against the header (count, and hash when the node names it).
 */
async function traceBlocks(rpc: RpcClient, plans: readonly Plan[]): Promise<Frames> {
  const all = await rpc.batch<unknown[]>(
    plans.map((p) => ({
      method: 'debug_traceBlockByNumber',
      params: [hex(p.n), { tracer: 'callTracer' }],
    })),
    { validate: Array.isArray },
  );
  return new Map(
    plans.map((p, i) => {
      const list = all[i] as unknown[];
      if (list.length !== p.header.transactions.length) {
        throw new InconsistentRangeError(`block ${p.n} changed while tracing`);
      }
      for (const k of p.indexes) {
        const named = (list[k] as { txHash?: unknown } | null)?.txHash;
        if (typeof named === 'string' && lower(named) !== lower(p.header.transactions[k] as string))
          throw new InconsistentRangeError(`block ${p.n} changed while tracing`);
      }
      return [p.n, new Map(p.indexes.map((k) => [k, frameOf(p, k, list[k])]))];
    }),
  );
}

/**
 * One `debug_traceBlockByNumber` entry as a call tree. anvil answers `{txHash, error: "Resource
 * not found"}` entries for blocks past its in-memory state: taken as a trace, that would silently
 * drop the transaction's internal transfers, so the backfill fails (and retries) instead.
 */
function frameOf(p: Plan, k: number, entry: unknown): CallFrame {
  const why = traceFailure(entry);
  if (why !== undefined) {
    throw new TraceUnavailableError(
      `block ${p.n}: the node has no trace of transaction ${k} (${why})`,
    );
  }
  return unwrapTrace(entry);
}
