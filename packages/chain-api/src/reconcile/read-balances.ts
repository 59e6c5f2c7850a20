import { decodeFunctionResult, encodeFunctionData, type Hex, parseAbi } from 'viem';
import { type RpcClient, RpcResponseError } from '../rpc/index.js';

const abi = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function balanceOf(address, uint256) view returns (uint256)',
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
]);

/** One balance to read: ERC20 `balanceOf(wallet)` or ERC1155 `balanceOf(wallet, id)`. */
export interface BalancePair {
  token: string;
  wallet: string;
  id?: bigint | undefined;
}

/** What a read cost: pairs asked and JSON-RPC calls sent. */
export interface ReadCost {
  reads: number;
  calls: number;
}

/** Sub-calls per aggregate3 (balanceOf costs ~3-10k gas: far below any node's eth_call cap). */
const PER_MULTICALL = 500;

const word = (r: Hex | undefined): bigint | null => (r && r.length === 66 ? BigInt(r) : null);

function callData(p: BalancePair): Hex {
  return p.id === undefined
    ? encodeFunctionData({ abi, functionName: 'balanceOf', args: [p.wallet as Hex] })
    : encodeFunctionData({ abi, functionName: 'balanceOf', args: [p.wallet as Hex, p.id] });
}

/** What a read answer is matched by: `${token}:${wallet}`, plus `:${id}` for ERC1155. */
export const pairKey = (p: BalancePair): string =>
  p.id === undefined ? `${p.token}:${p.wallet}` : `${p.token}:${p.wallet}:${p.id}`;

/**
 * `readBalances` with each answer keyed by its pair (`pairKey`), so callers look answers up by
 * what they asked rather than by position. A pair asked twice counts twice in `cost`.
 *
 * @example
 * const read = await readBalanceMap(rpc, multicall3, pairs, 1234n, cost);
 * const v = read.get(pairKey({ token, wallet })); // bigint, or null when unreadable
 */
export async function readBalanceMap(
  rpc: RpcClient,
  multicall3: string | null,
  pairs: readonly BalancePair[],
  block: bigint,
  cost?: ReadCost,
): Promise<Map<string, bigint | null>> {
  const values = await readBalances(rpc, multicall3, pairs, block, cost);
  return new Map(pairs.map((p, i) => [pairKey(p), values[i] ?? null]));
}

/**
 * Reads balances at `block`: Multicall3 `aggregate3` (500 pairs per call, all calls of one read
 * in one JSON-RPC batch) when deployed, else one `eth_call` per pair. A pair whose `balanceOf`
 * reverts or answers garbage is null. A multicall the node rejects (no Multicall3 code at that
 * block, gas cap) falls back to halves and finally to single calls, so one bad token never hides
 * the others. Transport failures are retried by the client and otherwise thrown.
 *
 * @example
 * const [b] = await readBalances(rpc, multicall3, [{ token, wallet }], 1234n, cost);
 */
export async function readBalances(
  rpc: RpcClient,
  multicall3: string | null,
  pairs: readonly BalancePair[],
  block: bigint,
  cost: ReadCost = { reads: 0, calls: 0 },
): Promise<(bigint | null)[]> {
  if (pairs.length === 0) return [];
  cost.reads += pairs.length;
  const tag = `0x${block.toString(16)}`;
  if (!multicall3) return single(rpc, pairs, tag, cost);
  const chunks: BalancePair[][] = [];
  for (let i = 0; i < pairs.length; i += PER_MULTICALL) {
    chunks.push(pairs.slice(i, i + PER_MULTICALL));
  }
  let answers: (Hex | null)[];
  try {
    cost.calls += chunks.length;
    answers = await rpc.batch<Hex>(
      chunks.map((chunk) => multicallRequest(multicall3, chunk, tag)),
      { validate: (r) => typeof r === 'string' },
    );
  } catch (error) {
    if (!(error instanceof RpcResponseError)) throw error;
    answers = chunks.map(() => null); // decoded one by one below
  }
  const out: (bigint | null)[] = [];
  for (const [c, chunk] of chunks.entries()) {
    const decoded = decodeAggregate(answers[c] ?? null, chunk.length);
    // '0x': no Multicall3 code at that block (deployed later): ask the tokens directly.
    const fallback = () =>
      answers[c] === '0x'
        ? single(rpc, chunk, tag, cost)
        : viaMulticall(rpc, multicall3, chunk, tag, cost);
    out.push(...(decoded ?? (await fallback())));
  }
  return out;
}

function multicallRequest(multicall3: string, chunk: readonly BalancePair[], tag: string) {
  const calls = chunk.map((p) => ({
    target: p.token as Hex,
    allowFailure: true,
    callData: callData(p),
  }));
  return {
    method: 'eth_call',
    params: [
      {
        to: multicall3,
        data: encodeFunctionData({ abi, functionName: 'aggregate3', args: [calls] }),
      },
      tag,
    ],
  };
}

function decodeAggregate(raw: Hex | null, n: number): (bigint | null)[] | null {
  if (!raw || raw === '0x') return null;
  try {
    const results = decodeFunctionResult({ abi, functionName: 'aggregate3', data: raw });
    if (results.length !== n) return null;
    return results.map((r) => (r.success ? word(r.returnData) : null));
  } catch {
    return null;
  }
}

/** One chunk through Multicall3 on its own; halves it when the node rejects it. */
async function viaMulticall(
  rpc: RpcClient,
  multicall3: string,
  chunk: readonly BalancePair[],
  tag: string,
  cost: ReadCost,
): Promise<(bigint | null)[]> {
  if (chunk.length <= 8) return single(rpc, chunk, tag, cost);
  const half = Math.ceil(chunk.length / 2);
  const out: (bigint | null)[] = [];
  for (const part of [chunk.slice(0, half), chunk.slice(half)]) {
    const req = multicallRequest(multicall3, part, tag);
    cost.calls++;
    const raw = await rpc.request<Hex>(req.method, req.params).catch((error: unknown) => {
      if (error instanceof RpcResponseError) return null;
      throw error;
    });
    const decoded = decodeAggregate(raw, part.length);
    if (decoded) out.push(...decoded);
    else if (raw === '0x') out.push(...(await single(rpc, part, tag, cost)));
    else out.push(...(await viaMulticall(rpc, multicall3, part, tag, cost)));
  }
  return out;
}

/** One eth_call per pair (a reverting call is an error for that pair only). */
function single(
  rpc: RpcClient,
  pairs: readonly BalancePair[],
  tag: string,
  cost: ReadCost,
): Promise<(bigint | null)[]> {
  cost.calls += pairs.length;
  return Promise.all(
    pairs.map((p) =>
      rpc
        .request<Hex>('eth_call', [{ to: p.token, data: callData(p) }, tag])
        .then((r) => word(typeof r === 'string' ? (r as Hex) : undefined))
        .catch((error: unknown) => {
          if (error instanceof RpcResponseError) return null;
          throw error;
        }),
    ),
  );
}
