/** Gas each read-only call may burn: view functions need a few thousand; 1M is far above. */
export const CALL_GAS = 1_000_000;

/** Gas one `eth_call` may burn in all (a whole Multicall3 batch), whatever it carries. */
export const MAX_ETH_CALL_GAS = 25_000_000;

// Multicall3's aggregate3((address,bool,bytes)[]) and aggregate((address,bytes)[]).
const multicallSelectors = new Set(['0x82ad56cb', '0x252dba42']);

/**
 * The `eth_call` params with a `gas` limit when the caller set none: `CALL_GAS` per call (per
 * sub-call of a Multicall3 batch, at most `MAX_ETH_CALL_GAS`). Without it the node runs a view
 * function up to its own cap (often 50M gas or none), so a contract whose view burns gas makes
 * every read of it expensive. Other methods pass through unchanged.
 *
 * @example
 * withCallGas('eth_call', [{ to, data: '0x95d89b41' }, 'latest']) // [{ to, data, gas: '0xf4240' }, 'latest']
 */
export function withCallGas(method: string, params: unknown[]): unknown[] {
  if (method !== 'eth_call') return params;
  const [call, ...rest] = params;
  if (typeof call !== 'object' || call === null || 'gas' in call) return params;
  const data =
    (call as { data?: unknown; input?: unknown }).data ?? (call as { input?: unknown }).input;
  const gas = Math.min(MAX_ETH_CALL_GAS, CALL_GAS * subCalls(typeof data === 'string' ? data : ''));
  return [{ ...call, gas: `0x${gas.toString(16)}` }, ...rest];
}

/** Sub-calls of a Multicall3 batch (the array length after the selector and its offset), else 1. */
function subCalls(data: string): number {
  if (!multicallSelectors.has(data.slice(0, 10).toLowerCase()) || data.length < 10 + 128) return 1;
  const n = Number.parseInt(data.slice(10 + 64, 10 + 128), 16);
  return Number.isSafeInteger(n) && n > 0 ? n : 1;
}
