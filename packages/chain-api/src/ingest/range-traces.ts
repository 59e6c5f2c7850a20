import type { ChainCapabilities, RpcClient } from '../rpc/index.js';
import { MalformedTraceError, type ParityTrace, parityBlockFrames } from '../rpc/parity-trace.js';
import type { CallFrame, RpcBlockWithTxs, RpcReceipt, RpcTx } from '../rpc/rpc-types.js';
import { repairBlockTraces } from './block-traces.js';

const INTRINSIC_GAS = 21_000n;

/**
 * Whether a transaction may have moved native value inside its execution. One that used exactly
 * the intrinsic 21,000 gas with no input ran no code: every way code moves value (a CALL with
 * value costs at least 9,000 gas more, CREATE 32,000, SELFDESTRUCT 5,000, and refunds give back at
 * most a fifth) costs more, and so does a call into an EIP-7702 delegated account (its
 * delegation is loaded). Deposit transactions (`0x7e`) are always traced: their gas is not
 * accounted that way.
 *
 * @example
 * mayMoveValueInside(tx, receipt) // false for a plain wallet-to-wallet transfer
 */
export function mayMoveValueInside(tx: RpcTx, receipt: RpcReceipt | undefined): boolean {
  if (!receipt || tx.to === null || tx.type === '0x7e') return true;
  if ((tx.input ?? '0x') !== '0x') return true;
  return BigInt(receipt.gasUsed) !== INTRINSIC_GAS;
}

/** The call tree of a transaction that ran no code: its own transfer, nothing inside. */
function plainFrame(tx: RpcTx): CallFrame {
  return { type: 'CALL', from: tx.from, to: tx.to ?? undefined, value: tx.value };
}

/**
 * The call traces of `blocks` (`receipts[i]` belongs to `blocks[i]`), one tree per transaction in
 * transaction order. Blocks where no transaction may move value inside are not traced at all
 * (their trees are the transactions themselves). The others are traced with the cheapest method
 * the node serves: Parity `trace_block` (built from what the node recorded while executing)
 * when probed present, else `debug_traceBlockByNumber` with the `callTracer` (a replay); a
 * transaction a block trace failed on is traced again another way (`repairBlockTraces`).
 *
 * @example
 * const traces = await fetchRangeTraces(rpc, caps, blocks, receipts);
 */
export async function fetchRangeTraces(
  rpc: RpcClient,
  caps: ChainCapabilities,
  blocks: readonly RpcBlockWithTxs[],
  receipts: readonly RpcReceipt[][],
): Promise<CallFrame[][]> {
  const traced = blocks.filter((block, i) => {
    const byHash = new Map((receipts[i] ?? []).map((r) => [r.transactionHash.toLowerCase(), r]));
    return block.transactions.some((tx) =>
      mayMoveValueInside(tx, byHash.get(tx.hash.toLowerCase())),
    );
  });
  const frames = new Map<RpcBlockWithTxs, CallFrame[]>();
  if (traced.length > 0) {
    const parity = caps.traceMethod === 'parity' ? await parityTraces(rpc, traced) : undefined;
    const viaDebug = traced.filter((_b, i) => !parity?.[i]);
    traced.forEach((b, i) => {
      const f = parity?.[i];
      if (f) frames.set(b, f);
    });
    if (viaDebug.length > 0) {
      const answers = await rpc.batch<unknown[]>(
        viaDebug.map((b) => ({
          method: 'debug_traceBlockByNumber',
          params: [b.number, { tracer: 'callTracer' }],
        })),
        { validate: Array.isArray },
      );
      const repaired = await repairBlockTraces(rpc, viaDebug, answers);
      viaDebug.forEach((b, i) => {
        frames.set(b, repaired[i] as CallFrame[]);
      });
    }
  }
  return blocks.map((b) => frames.get(b) ?? b.transactions.map(plainFrame));
}

/**
 * `trace_block` of each block as call trees; undefined for a block whose answer does not form
 * one tree per transaction (it is traced with the debug method instead).
 */
async function parityTraces(
  rpc: RpcClient,
  blocks: readonly RpcBlockWithTxs[],
): Promise<(CallFrame[] | undefined)[]> {
  const lists = await rpc.batch<ParityTrace[]>(
    blocks.map((b) => ({ method: 'trace_block', params: [b.number] })),
    { validate: Array.isArray },
  );
  return lists.map((list, i) => {
    try {
      return parityBlockFrames(list, blocks[i]?.transactions.length ?? 0);
    } catch (error) {
      if (error instanceof MalformedTraceError) return undefined;
      throw error;
    }
  });
}
