import type { RpcClient } from './create-rpc-client.js';
import { RpcResponseError } from './rpc-errors.js';

/** Canonical Multicall3 address, deployed on most EVM chains. */
export const MULTICALL3_ADDRESS = '0xca11bde05977b3631167028862be2a173976ca11';

/** What a node can do, detected once per chain. */
export interface ChainCapabilities {
  /** `debug_traceBlockByNumber` with the `callTracer` works (internal native transfers). */
  traces: boolean;
  /** `eth_getBlockReceipts` works (one call per block instead of one per transaction). */
  blockReceipts: boolean;
  /** Address of a deployed Multicall3, or null. */
  multicall3: `0x${string}` | null;
}

/**
 * Probes a node's optional features at `block` (hex or tag). A method the node rejects outright
 * counts as absent; transient failures are retried by the client before this decides.
 *
 * @example
 * const caps = await probeCapabilities(rpc, { multicall3: chain.multicall3 });
 */
export async function probeCapabilities(
  rpc: RpcClient,
  opts: { block?: string; multicall3?: string | undefined } = {},
): Promise<ChainCapabilities> {
  const block = opts.block ?? (await rpc.request<string>('eth_blockNumber', []));
  const traces = await supported(() =>
    rpc.request('debug_traceBlockByNumber', [block, { tracer: 'callTracer' }], {
      validate: Array.isArray,
    }),
  );
  const blockReceipts = await supported(() =>
    rpc.request('eth_getBlockReceipts', [block], { validate: Array.isArray }),
  );
  let multicall3: `0x${string}` | null = null;
  for (const candidate of new Set([opts.multicall3?.toLowerCase(), MULTICALL3_ADDRESS])) {
    if (!candidate) continue;
    const code = await rpc.request<string>('eth_getCode', [candidate, 'latest']);
    if (typeof code === 'string' && code.length > 2) {
      multicall3 = candidate as `0x${string}`;
      break;
    }
  }
  return { traces, blockReceipts, multicall3 };
}

async function supported(probe: () => Promise<unknown>): Promise<boolean> {
  try {
    await probe();
    return true;
  } catch (error) {
    if (error instanceof RpcResponseError) return false;
    if (error instanceof Error && error.name === 'RpcMalformedResponseError') return false;
    throw error;
  }
}
