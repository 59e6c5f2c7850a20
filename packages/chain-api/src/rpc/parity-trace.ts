import { BaseError } from '../errors/index.js';
import type { CallFrame, Hex } from './rpc-types.js';

/** One entry of `trace_transaction` / `trace_block` (OpenEthereum/Parity format). */
export interface ParityTrace {
  type: string;
  action: {
    callType?: string;
    from?: Hex;
    to?: Hex;
    value?: Hex;
    creationMethod?: string;
    address?: Hex;
    refundAddress?: Hex;
    balance?: Hex;
  };
  result?: { address?: Hex } | null;
  error?: string;
  traceAddress: number[];
  transactionHash?: string | null;
  transactionPosition?: number | null;
}

/** A trace list that does not form one call tree. */
export class MalformedTraceError extends BaseError<'TRACE_MALFORMED'> {
  override name = 'MalformedTraceError';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: 'TRACE_MALFORMED', cause: options.cause });
  }
}

/**
 * The `callTracer` call tree of one transaction from its flat Parity traces: each trace's
 * `traceAddress` names its place in the tree. Frames carry what `internalTransfers` reads: type
 * (CALL, STATICCALL, DELEGATECALL, CALLCODE, CREATE, CREATE2, SELFDESTRUCT), from, to, value,
 * error and children in execution order. Nodes such as anvil, Erigon and Reth build both formats
 * from the same execution (anvil answers these from memory, ~75x cheaper than replaying a block
 * for `debug_traceBlockByNumber`).
 *
 * @example
 * const frame = parityToCallFrame(await rpc.request('trace_transaction', [hash]));
 */
export function parityToCallFrame(traces: readonly ParityTrace[]): CallFrame {
  let root: CallFrame | undefined;
  const byPath = new Map<string, CallFrame>();
  for (const t of traces) {
    if (!Array.isArray(t.traceAddress) || typeof t.action !== 'object' || t.action === null) {
      throw new MalformedTraceError('trace without traceAddress or action');
    }
    const frame = toFrame(t);
    const path = t.traceAddress;
    if (path.length === 0) {
      if (root) throw new MalformedTraceError('two root traces');
      root = frame;
    } else {
      const parent = byPath.get(path.slice(0, -1).join(','));
      if (!parent) throw new MalformedTraceError(`trace ${path.join(',')} before its parent`);
      const calls = parent.calls ?? [];
      // Siblings come in execution order; the index says where when a node reorders them.
      calls[path[path.length - 1] as number] = frame;
      parent.calls = calls;
    }
    byPath.set(path.join(','), frame);
  }
  if (!root) throw new MalformedTraceError('no root trace');
  for (const f of byPath.values()) {
    // `some` skips holes: spread the array to see them.
    if (f.calls && [...f.calls].includes(undefined as unknown as CallFrame))
      throw new MalformedTraceError('missing sibling');
  }
  return root;
}

function toFrame(t: ParityTrace): CallFrame {
  const a = t.action;
  let frame: CallFrame;
  switch (t.type) {
    case 'call':
      frame = {
        type: (a.callType ?? 'call').toUpperCase(),
        from: a.from as Hex,
        to: a.to as Hex,
        value: a.value,
      };
      break;
    case 'create':
      frame = {
        type: a.creationMethod?.toLowerCase() === 'create2' ? 'CREATE2' : 'CREATE',
        from: a.from as Hex,
        value: a.value,
        ...(t.result?.address ? { to: t.result.address } : {}),
      };
      break;
    case 'suicide':
    case 'selfdestruct':
      frame = {
        type: 'SELFDESTRUCT',
        from: a.address as Hex,
        to: a.refundAddress as Hex,
        value: a.balance,
      };
      break;
    default:
      throw new MalformedTraceError(`trace type ${t.type} inside a transaction`);
  }
  if (typeof frame.from !== 'string') throw new MalformedTraceError('frame without from');
  if (t.error) frame.error = t.error;
  return frame;
}

/**
 * A block's `trace_block` answer as one call tree per transaction, in transaction order (block
 * rewards and other entries without a transaction position dropped). Throws MalformedTraceError
 * unless every one of `txCount` transactions has its tree.
 *
 * @example
 * const frames = parityBlockFrames(await rpc.request('trace_block', ['0x10']), 200);
 */
export function parityBlockFrames(traces: readonly ParityTrace[], txCount: number): CallFrame[] {
  const perTx: ParityTrace[][] = Array.from({ length: txCount }, () => []);
  for (const t of traces) {
    const p = t.transactionPosition;
    if (p === null || p === undefined) continue;
    const list = perTx[p];
    if (!list) throw new MalformedTraceError(`trace of transaction ${p} of ${txCount}`);
    list.push(t);
  }
  return perTx.map((list) => parityToCallFrame(list));
}
