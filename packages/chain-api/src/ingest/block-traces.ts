import { BaseError } from '../errors/index.js';
import { isMethodNotFound, type RpcClient } from '../rpc/index.js';
import { type ParityTrace, parityBlockFrames } from '../rpc/parity-trace.js';
import type { CallFrame, RpcBlockWithTxs } from '../rpc/rpc-types.js';

/** A transaction the node could not trace by any method it serves: the range is retried. */
export class TraceUnavailableError extends BaseError<'TRACE_UNAVAILABLE'> {
  override name = 'TraceUnavailableError';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: 'TRACE_UNAVAILABLE', cause: options.cause });
  }
}

/** Nodes that answered `trace_block` with "method not found" (not asked again). */
const noParity = new WeakSet<RpcClient>();

/**
 * Why an entry of `debug_traceBlockByNumber` holds no call tree, or undefined when it does.
 * geth answers `{txHash, result}` and `{txHash, error}` for a transaction its tracer could not
 * run (a tracer timeout on a heavy transaction; anvil past its state window: "Resource not
 * found"); some nodes answer the frame itself. A frame of a reverted call carries `error` too,
 * but with its `type`.
 */
export function traceFailure(entry: unknown): string | undefined {
  if (typeof entry !== 'object' || entry === null) return 'no trace';
  const e = entry as { result?: unknown; error?: unknown; type?: unknown };
  if ('result' in e) {
    const r = e.result as { type?: unknown } | null | undefined;
    return r && typeof r === 'object' && typeof r.type === 'string' ? undefined : 'empty result';
  }
  if (typeof e.type === 'string') return undefined;
  return typeof e.error === 'string' ? e.error.slice(0, 200) : 'no trace';
}

/**
 * One entry of `debug_traceBlockByNumber` as a frame: geth answers `{txHash, result}`, some nodes
 * the frame itself (check `traceFailure` first).
 */
export function unwrapTrace(entry: unknown): CallFrame {
  if (typeof entry === 'object' && entry !== null && 'result' in entry) {
    return (entry as { result: CallFrame }).result;
  }
  return entry as CallFrame;
}

/**
 * The call traces of `blocks` from their `debug_traceBlockByNumber` answers (`answers[i]` for
 * `blocks[i]`), with every transaction the node failed to trace there traced again: from the
 * block's Parity `trace_block` when the node serves it, else with `debug_traceTransaction`.
 * Throws TraceUnavailableError naming the transaction when none works, so a missing trace is
 * never read as "no internal transfers" (its recipients' balances would go unrefreshed).
 *
 * @example
 * const frames = await repairBlockTraces(rpc, blocks, answers);
 */
export async function repairBlockTraces(
  rpc: RpcClient,
  blocks: readonly RpcBlockWithTxs[],
  answers: readonly unknown[][],
): Promise<CallFrame[][]> {
  return Promise.all(
    answers.map(async (list, i) => {
      const failed = list.flatMap((entry, k) => {
        const why = traceFailure(entry);
        return why === undefined ? [] : [{ k, why }];
      });
      const frames = list.map((entry) => unwrapTrace(entry));
      if (failed.length === 0) return frames;
      const block = blocks[i];
      if (!block) throw new TraceUnavailableError(`no block for trace answer ${i}`);
      const parity = await parityFrames(rpc, block, list.length);
      for (const { k, why } of failed) {
        frames[k] = parity?.[k] ?? (await traceOne(rpc, block, k, why));
      }
      return frames;
    }),
  );
}

async function parityFrames(
  rpc: RpcClient,
  block: RpcBlockWithTxs,
  txCount: number,
): Promise<CallFrame[] | undefined> {
  if (noParity.has(rpc)) return undefined;
  try {
    const list = await rpc.request<ParityTrace[]>('trace_block', [block.number], {
      validate: Array.isArray,
    });
    return parityBlockFrames(list, txCount);
  } catch (error) {
    if (isMethodNotFound(error)) noParity.add(rpc);
    return undefined;
  }
}

async function traceOne(
  rpc: RpcClient,
  block: RpcBlockWithTxs,
  k: number,
  why: string,
): Promise<CallFrame> {
  const hash = block.transactions[k]?.hash;
  const where = `block ${BigInt(block.number)} transaction ${k}${hash ? ` (${hash})` : ''}`;
  if (!hash) throw new TraceUnavailableError(`${where} could not be traced: ${why}`);
  try {
    const frame = await rpc.request<unknown>(
      'debug_traceTransaction',
      [hash, { tracer: 'callTracer', timeout: '60s' }],
      { validate: (r) => traceFailure(r) === undefined },
    );
    return unwrapTrace(frame);
  } catch (error) {
    const detail = error instanceof Error ? error.message.slice(0, 200) : String(error);
    throw new TraceUnavailableError(
      `${where} could not be traced (block trace: ${why}; transaction trace: ${detail})`,
    );
  }
}
