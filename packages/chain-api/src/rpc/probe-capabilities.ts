import { BaseError } from '../errors/index.js';
import { sleep } from './backoff.js';
import type { RpcClient } from './create-rpc-client.js';
import {
  isMethodNotFound,
  RpcError,
  RpcMalformedResponseError,
  RpcResponseError,
} from './rpc-errors.js';

/** Canonical Multicall3 address, deployed on most EVM chains. */
export const MULTICALL3_ADDRESS = '0xca11bde05977b3631167028862be2a173976ca11';

/** What a node can do, detected once per chain. */
export interface ChainCapabilities {
  /**
   * Call traces work (internal native transfers): Parity `trace_block` or
   * `debug_traceBlockByNumber` with the `callTracer`.
   */
  traces: boolean;
  /**
   * Which of them the indexer asks: `parity` (answered from what the node recorded while
   * executing: ~75x cheaper than a replay on anvil) when the node serves it, else `debug`.
   * Absent means `debug`.
   */
  traceMethod?: 'parity' | 'debug';
  /** `eth_getBlockReceipts` works (one call per block instead of one per transaction). */
  blockReceipts: boolean;
  /** Address of a deployed Multicall3, or null. */
  multicall3: `0x${string}` | null;
}

/**
 * A probe could not tell whether the node has a feature (it failed with errors that are not
 * "method not found"). The caller retries later; the feature is never assumed absent.
 */
export class CapabilityUnknownError extends BaseError<'CAPABILITY_UNKNOWN'> {
  override name = 'CapabilityUnknownError';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: 'CAPABILITY_UNKNOWN', cause: options.cause });
  }
}

export interface ProbeOptions {
  block?: string;
  multicall3?: string | undefined;
  /** Tries per optional method before giving up as unknown. Default 4. */
  attempts?: number;
  /** First delay between tries, ms (doubles). Default 250. */
  retryDelayMs?: number;
  signal?: AbortSignal;
}

/**
 * Probes a node's optional features at `block` (hex or tag, default the head). Only a definite
 * refusal (method not found / not available, invalid params, an answer that repeatedly is not the
 * expected shape) counts as absent. Any other failure (e.g. one `-32000` from a busy node) is
 * retried, on an older block each time, and if it persists the probe throws
 * CapabilityUnknownError: a transient error never turns a feature off for the whole run.
 *
 * @example
 * const caps = await probeCapabilities(rpc, { multicall3: chain.multicall3 });
 */
export async function probeCapabilities(
  rpc: RpcClient,
  opts: ProbeOptions = {},
): Promise<ChainCapabilities> {
  const head = opts.block ?? (await rpc.request<string>('eth_blockNumber', []));
  const attempts = opts.attempts ?? 4;
  const delay = opts.retryDelayMs ?? 250;
  const blockAt = (attempt: number): string => {
    if (attempt === 0 || !/^0x[0-9a-f]+$/i.test(head)) return head;
    const n = BigInt(head) - BigInt(attempt);
    return `0x${(n > 0n ? n : 0n).toString(16)}`;
  };
  const probe = async (
    what: string,
    call: (block: string) => Promise<unknown>,
    tries = attempts,
  ) => {
    let last: unknown;
    for (let attempt = 0; attempt < tries; attempt++) {
      if (attempt > 0) await sleep(delay * 2 ** (attempt - 1), opts.signal);
      try {
        await call(blockAt(attempt));
        return true;
      } catch (error) {
        if (definitelyUnsupported(error)) return false;
        if (!(error instanceof RpcError)) throw error;
        last = error;
      }
    }
    const why = last instanceof Error ? last.message : String(last);
    throw new CapabilityUnknownError(`cannot tell whether the node supports ${what}: ${why}`);
  };
  // Bounded (two tries, no retries inside): a node that hangs on trace_block must not keep the
  // indexer from starting; the replaying method is probed as before then.
  const parity = await probe(
    'trace_block',
    (block) => rpc.request('trace_block', [block], { validate: Array.isArray, maxAttempts: 1 }),
    Math.min(2, attempts),
  ).catch((error: unknown) => {
    // Unknown: the replaying method below decides (an error if it is unknown too).
    if (error instanceof CapabilityUnknownError) return 'unknown' as const;
    throw error;
  });
  const debug =
    parity === true
      ? true
      : await probe('debug_traceBlockByNumber (callTracer)', (block) =>
          rpc.request('debug_traceBlockByNumber', [block, { tracer: 'callTracer' }], {
            validate: Array.isArray,
          }),
        );
  if (parity === 'unknown' && !debug) {
    throw new CapabilityUnknownError('cannot tell whether the node supports trace_block');
  }
  const traces = parity === true || debug;
  const traceMethod = parity === true ? ('parity' as const) : ('debug' as const);
  const blockReceipts = await probe('eth_getBlockReceipts', (block) =>
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
  return { traces, traceMethod, blockReceipts, multicall3 };
}

/** The node refuses the method itself, not this one call. */
function definitelyUnsupported(error: unknown): boolean {
  if (isMethodNotFound(error)) return true;
  if (error instanceof RpcResponseError && error.rpcCode === -32602) return true; // params/tracer refused
  // An answer of the wrong shape every time (the client retried it) is not a working method.
  return error instanceof RpcMalformedResponseError && !error.retryable;
}
