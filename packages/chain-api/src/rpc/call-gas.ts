/**
 * Gas each read-only call may burn. Most views need a few thousand, but on-chain NFT art builds
 * its `tokenURI` document in millions (and returning a 1 MB document costs ~2M in memory alone):
 * 10M serves those while a gas-burning view stops at a fifth of a typical node's 50M cap.
 */
export const CALL_GAS = 10_000_000;

/** Gas one `eth_call` may burn in all (a whole Multicall3 batch): a typical node's own cap. */
export const MAX_ETH_CALL_GAS = 50_000_000;

// Multicall3's aggregate3((address,bool,bytes)[]) and aggregate((address,bytes)[]).
const multicallSelectors = new Set(['0x82ad56cb', '0x252dba42']);

/**
 * The `eth_call` params with a `gas` limit when the caller set none: `CALL_GAS` per call (per
 * sub-call of a Multicall3 batch, at most `MAX_ETH_CALL_GAS`). Without it the node runs a view
 * function up to its own cap (often 50M gas or none), so a contract whose view burns gas makes
 * every read of it expensive. Other methods pass through unchanged.
 *
 * @example
 * withCallGas('eth_call', [{ to, data: '0x95d89b41' }, 'latest']) // [{ to, data, gas: '0x98e928' }, 'latest']
 */
export function withCallGas(method: string, params: unknown[]): unknown[] {
  if (method !== 'eth_call') return params;
  const [call, ...rest] = params;
  if (typeof call !== 'object' || call === null || 'gas' in call) return params;
  const data =
    (call as { data?: unknown; input?: unknown }).data ?? (call as { input?: unknown }).input;
  const hex = typeof data === 'string' ? data : '';
  // Plus the calldata's own (intrinsic) gas, which the node charges before any code runs: a call
  // carrying a large payload must not fail as "intrinsic gas too high" under the cap.
  const gas = intrinsicGas(hex) + Math.min(MAX_ETH_CALL_GAS, CALL_GAS * subCalls(hex));
  return [{ ...call, gas: `0x${gas.toString(16)}` }, ...rest];
}

/**
 * 21,000 plus 40 gas per calldata byte: an upper bound of both the standard price (16 per
 * non-zero byte) and the Prague calldata floor (EIP-7623: 10 per token, 4 tokens per non-zero
 * byte), which nodes check against the call's gas limit.
 */
export function intrinsicGas(data: string): number {
  const bytes = Math.max(0, Math.ceil((data.length - (data.startsWith('0x') ? 2 : 0)) / 2));
  return 21_000 + 40 * bytes;
}

/** Sub-calls of a Multicall3 batch (the array length after the selector and its offset), else 1. */
function subCalls(data: string): number {
  if (!multicallSelectors.has(data.slice(0, 10).toLowerCase()) || data.length < 10 + 128) return 1;
  const n = Number.parseInt(data.slice(10 + 64, 10 + 128), 16);
  return Number.isSafeInteger(n) && n > 0 ? n : 1;
}
