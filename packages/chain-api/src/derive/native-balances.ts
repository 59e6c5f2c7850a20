import type { Logger } from 'pino';
import { decodeFunctionResult, encodeFunctionData, type Hex, parseAbi } from 'viem';
import type { RpcClient } from '../rpc/index.js';
import { RpcResponseError } from '../rpc/index.js';

const abi = parseAbi([
  'function getEthBalance(address addr) view returns (uint256 balance)',
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
]);

/** Balances per aggregate3: `getEthBalance` costs ~2.6k gas cold, far below any eth_call cap. */
const PER_MULTICALL = 500;

const hexBlock = (block: bigint) => `0x${block.toString(16)}`;

/** Where to read, and what to say when the block's state is missing. */
export interface NativeBalanceOptions {
  /** Multicall3's address on this chain: balances are read through its `getEthBalance`. */
  multicall3?: string | null | undefined;
  log?: Logger | undefined;
}

/**
 * Native balances of `addresses` at `block`: through Multicall3's `getEthBalance` (one `eth_call`
 * per 500 addresses) when the chain has it, else one batched `eth_getBalance` each; an address the
 * multicall did not answer (no Multicall3 code yet at that block) is read with `eth_getBalance`. A
 * node without that historical state (a non-archive node far behind) answers with an error: then
 * the balances are read at `latest` instead and `atLatest` says so.
 *
 * @example
 * const { balances } = await fetchNativeBalances(rpc, ['0xabc...'], 1234n, { multicall3 });
 */
export async function fetchNativeBalances(
  rpc: RpcClient,
  addresses: readonly string[],
  block: bigint,
  opts: NativeBalanceOptions = {},
): Promise<{ balances: Map<string, bigint>; atLatest: boolean }> {
  if (addresses.length === 0) return { balances: new Map(), atLatest: false };
  const multicall3 = opts.multicall3 ?? null;
  try {
    return { balances: await readAt(rpc, multicall3, addresses, hexBlock(block)), atLatest: false };
  } catch (error) {
    if (!(error instanceof RpcResponseError)) throw error;
    opts.log?.warn(
      { block: Number(block), err: error.message },
      'historical balance unavailable; reading latest',
    );
    return { balances: await readAt(rpc, multicall3, addresses, 'latest'), atLatest: true };
  }
}

/** Every balance at `tag`; throws the node's RpcResponseError when it has no state there. */
async function readAt(
  rpc: RpcClient,
  multicall3: string | null,
  addresses: readonly string[],
  tag: string,
): Promise<Map<string, bigint>> {
  const values = multicall3
    ? await viaMulticall(rpc, multicall3, addresses, tag)
    : addresses.map(() => undefined);
  const missing = addresses.filter((_, i) => values[i] === undefined);
  if (missing.length > 0) {
    const read = await rpc.batch<string>(
      missing.map((a) => ({ method: 'eth_getBalance', params: [a, tag] })),
      { validate: (r) => typeof r === 'string' && /^0x[0-9a-fA-F]*$/.test(r) },
    );
    let k = 0;
    for (let i = 0; i < values.length; i++) {
      if (values[i] !== undefined) continue;
      const raw = read[k++] as string;
      values[i] = BigInt(raw === '0x' ? '0x0' : raw);
    }
  }
  const balances = new Map<string, bigint>();
  addresses.forEach((a, i) => {
    balances.set(a, values[i] as bigint);
  });
  return balances;
}

/**
 * `getEthBalance` of each address through Multicall3; `undefined` where it gave no answer. When the
 * node rejects the multicall, one `eth_getBalance` tells why: its error (no state at `tag`) is
 * thrown; if it succeeds the multicall itself is at fault and every address is left to the caller.
 */
async function viaMulticall(
  rpc: RpcClient,
  multicall3: string,
  addresses: readonly string[],
  tag: string,
): Promise<(bigint | undefined)[]> {
  const chunks: (readonly string[])[] = [];
  for (let i = 0; i < addresses.length; i += PER_MULTICALL) {
    chunks.push(addresses.slice(i, i + PER_MULTICALL));
  }
  let answers: Hex[];
  try {
    answers = await rpc.batch<Hex>(
      chunks.map((chunk) => ({
        method: 'eth_call',
        params: [{ to: multicall3, data: aggregate(multicall3, chunk) }, tag],
      })),
      { validate: (r) => typeof r === 'string' },
    );
  } catch (error) {
    if (!(error instanceof RpcResponseError)) throw error;
    await rpc.request<string>('eth_getBalance', [addresses[0], tag]);
    return addresses.map(() => undefined);
  }
  return chunks.flatMap((chunk, i) => decode(answers[i], chunk.length));
}

function aggregate(multicall3: string, chunk: readonly string[]): Hex {
  const calls = chunk.map((a) => ({
    target: multicall3 as Hex,
    allowFailure: true,
    callData: encodeFunctionData({ abi, functionName: 'getEthBalance', args: [a as Hex] }),
  }));
  return encodeFunctionData({ abi, functionName: 'aggregate3', args: [calls] });
}

/** `0x` (no Multicall3 code at that block) or a failed sub-call: `undefined`, read another way. */
function decode(raw: Hex | undefined, n: number): (bigint | undefined)[] {
  const none = () => Array.from({ length: n }, () => undefined);
  if (!raw || raw === '0x') return none();
  try {
    const results = decodeFunctionResult({ abi, functionName: 'aggregate3', data: raw });
    if (results.length !== n) return none();
    return results.map((r) =>
      r.success && r.returnData.length === 66 ? BigInt(r.returnData) : undefined,
    );
  } catch {
    return none();
  }
}
