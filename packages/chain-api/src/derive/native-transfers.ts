import type { CallFrame } from '../rpc/rpc-types.js';

/** A native value movement inside a transaction (from a call trace). */
export interface InternalTransfer {
  from: string;
  to: string;
  value: bigint;
}

const VALUE_FRAMES = new Set(['CALL', 'CREATE', 'CREATE2', 'SELFDESTRUCT']);

/**
 * The internal native transfers of one transaction: every non-root frame of a `callTracer` trace
 * that moves value and did not revert (nor sit under a reverted frame), in execution order.
 *
 * @example
 * internalTransfers(trace) // [{ from: '0xrouter', to: '0xuser', value: 10n ** 17n }]
 */
export function internalTransfers(root: CallFrame): InternalTransfer[] {
  const out: InternalTransfer[] = [];
  if (root.error) return out;
  const walk = (frames: CallFrame[] | undefined) => {
    if (!frames) return;
    for (const f of frames) {
      if (f.error) continue; // the frame and everything under it reverted
      const value = f.value ? BigInt(f.value) : 0n;
      if (value > 0n && f.to && VALUE_FRAMES.has(f.type.toUpperCase())) {
        out.push({ from: f.from.toLowerCase(), to: f.to.toLowerCase(), value });
      }
      walk(f.calls);
    }
  };
  walk(root.calls);
  return out;
}
