import { decodeFunctionResult, encodeFunctionData, type Hex, parseAbi } from 'viem';
import type { RpcClient } from './create-rpc-client.js';
import { RpcResponseError } from './rpc-errors.js';

const abi = parseAbi([
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
]);

/** One read-only contract call. */
export interface ContractCall {
  to: string;
  data: Hex;
}

/**
 * What one call answered: its return data; `null` when it reverted (the contract's own answer);
 * `undefined` when the node could not run it (an error that is not a revert, e.g. a timeout of
 * the call itself): nothing can be concluded from it.
 */
export type CallResult = Hex | null | undefined;

/** Sub-calls per aggregate3: view calls of a few thousand gas each, far below any eth_call cap. */
const PER_MULTICALL = 200;

/**
 * Runs read-only calls at one block: through Multicall3 (`aggregate3`, all chunks in one JSON-RPC
 * batch) when `multicall3` is given, else one `eth_call` each. A chunk the node rejects or that
 * does not decode is split in halves and finally asked call by call; a `0x` answer (no Multicall3
 * code at that block) goes call by call at once. Transport failures (after the client's retries)
 * are thrown: the node is unreachable, which the caller reports.
 *
 * @example
 * const [symbol] = await readCalls(rpc, multicall3, [{ to: token, data: '0x95d89b41' }], 123n);
 */
export async function readCalls(
  rpc: RpcClient,
  multicall3: string | null,
  calls: readonly ContractCall[],
  block: bigint,
): Promise<CallResult[]> {
  if (calls.length === 0) return [];
  const tag = `0x${block.toString(16)}`;
  if (!multicall3) return single(rpc, calls, tag);
  const chunks: ContractCall[][] = [];
  for (let i = 0; i < calls.length; i += PER_MULTICALL) {
    chunks.push(calls.slice(i, i + PER_MULTICALL));
  }
  let answers: (Hex | null)[];
  try {
    answers = await rpc.batch<Hex>(
      chunks.map((chunk) => ({
        method: 'eth_call',
        params: aggregateParams(multicall3, chunk, tag),
      })),
      { validate: (r) => typeof r === 'string' },
    );
  } catch (error) {
    if (!(error instanceof RpcResponseError)) throw error;
    answers = chunks.map(() => null); // each chunk again on its own below
  }
  const out: CallResult[] = [];
  for (const [i, chunk] of chunks.entries()) {
    const answer = answers[i] ?? null;
    out.push(
      ...(decode(answer, chunk.length) ?? (await fallback(rpc, multicall3, chunk, tag, answer))),
    );
  }
  return out;
}

function aggregateParams(multicall3: string, chunk: readonly ContractCall[], tag: string) {
  const calls = chunk.map((c) => ({ target: c.to as Hex, allowFailure: true, callData: c.data }));
  return [
    {
      to: multicall3,
      data: encodeFunctionData({ abi, functionName: 'aggregate3', args: [calls] }),
    },
    tag,
  ];
}

function decode(raw: Hex | null, n: number): CallResult[] | null {
  if (!raw || raw === '0x') return null;
  try {
    const results = decodeFunctionResult({ abi, functionName: 'aggregate3', data: raw });
    if (results.length !== n) return null;
    return results.map((r) => (r.success ? r.returnData : null));
  } catch {
    return null;
  }
}

/** A chunk the batch could not answer: halves through Multicall3, then call by call. */
async function fallback(
  rpc: RpcClient,
  multicall3: string,
  chunk: readonly ContractCall[],
  tag: string,
  answer: Hex | null,
): Promise<CallResult[]> {
  if (answer === '0x' || chunk.length <= 8) return single(rpc, chunk, tag);
  const half = Math.ceil(chunk.length / 2);
  const out: CallResult[] = [];
  for (const part of [chunk.slice(0, half), chunk.slice(half)]) {
    const raw = await rpc
      .request<Hex>('eth_call', aggregateParams(multicall3, part, tag))
      .catch((error: unknown) => {
        if (error instanceof RpcResponseError) return null;
        throw error;
      });
    out.push(...(decode(raw, part.length) ?? (await fallback(rpc, multicall3, part, tag, raw))));
  }
  return out;
}

function single(
  rpc: RpcClient,
  calls: readonly ContractCall[],
  tag: string,
): Promise<CallResult[]> {
  return Promise.all(
    calls.map((c) =>
      rpc
        .request<Hex>('eth_call', [{ to: c.to, data: c.data }, tag])
        .then((r): CallResult => (typeof r === 'string' ? r : undefined))
        .catch((error: unknown): CallResult => {
          if (!(error instanceof RpcResponseError)) throw error;
          return isRevert(error) ? null : undefined;
        }),
    ),
  );
}

/**
 * The call itself reverted (as opposed to the node failing to run it).
 *
 * @example
 * isRevert(new RpcResponseError('eth_call', 3, 'execution reverted')) // true
 */
export function isRevert(error: RpcResponseError): boolean {
  return (
    error.rpcCode === 3 ||
    /revert|invalid ?opcode|out ?of ?gas|stack ?(underflow|overflow)|bad ?jump/i.test(error.message)
  );
}
