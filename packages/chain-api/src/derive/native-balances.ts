import type { Logger } from 'pino';
import { decodeFunctionResult, type Hex, parseAbi, toFunctionSelector } from 'viem';
import type { RpcClient } from '../rpc/index.js';
import { RpcResponseError } from '../rpc/index.js';

const abi = parseAbi([
  'function getEthBalance(address addr) view returns (uint256 balance)',
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
]);

/** Balances per aggregate3: `getEthBalance` costs ~2.6k gas cold, far below any eth_call cap. */
const PER_MULTICALL = 500;

const hexBlock = (block: bigint) => `0x${block.toString(16)}`;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

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
  // Laid out by hand below: anything but a plain 20-byte address goes the eth_getBalance way.
  if (!addresses.every((a) => ADDRESS.test(a))) return addresses.map(() => undefined);
  const chunks: (readonly string[])[] = [];
  for (let i = 0; i < addresses.length; i += PER_MULTICALL) {
    chunks.push(addresses.slice(i, i + PER_MULTICALL));
  }
  let answers: Hex[];
  try {
    answers = await rpc.batch<Hex>(
      chunks.map((chunk) => ({
        method: 'eth_call',
        params: [{ to: multicall3, data: encodeEthBalanceCalls(multicall3, chunk) }, tag],
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

const word = (n: number) => n.toString(16).padStart(64, '0');
const AGGREGATE3 = toFunctionSelector(abi[1]).slice(2);
const GET_ETH_BALANCE = toFunctionSelector(abi[0]).slice(2);
// Words every element repeats, formatted once rather than per address.
const [ZERO, ONE, THIRTY_TWO, SIXTY_FOUR] = [0, 1, 32, 0x40].map(word);
/** A call element's words after its target: allowFailure, the bytes' offset (0x60) and length (36). */
const CALL_HEAD = `${ONE}${word(0x60)}${word(36)}`;

/**
 * `aggregate3` calldata of `getEthBalance(a)` on Multicall3 itself for each address. Every element
 * has the same static shape, so it is laid out directly (viem's generic encoder cost ~10 us per
 * address, a noticeable share of a backfill's CPU); the test checks it against viem's encoding.
 */
export function encodeEthBalanceCalls(multicall3: string, chunk: readonly string[]): Hex {
  const target = multicall3.slice(2).toLowerCase().padStart(64, '0');
  // Each (target, allowFailure, bytes) tuple: 3 head words, the bytes' length, 36 bytes padded to 64.
  const tupleBytes = 6 * 32;
  let offsets = '';
  let tuples = '';
  chunk.forEach((address, i) => {
    offsets += word(chunk.length * 32 + i * tupleBytes);
    const data = `${GET_ETH_BALANCE}${address.slice(2).toLowerCase().padStart(64, '0')}`;
    tuples += `${target}${CALL_HEAD}${data.padEnd(128, '0')}`;
  });
  return `0x${AGGREGATE3}${THIRTY_TWO}${word(chunk.length)}${offsets}${tuples}`;
}

/** `0x` (no Multicall3 code at that block) or a failed sub-call: `undefined`, read another way. */
function decode(raw: Hex | undefined, n: number): (bigint | undefined)[] {
  const none = () => Array.from({ length: n }, () => undefined);
  if (!raw || raw === '0x') return none();
  const laidOut = decodeEthBalances(raw, n);
  if (laidOut) return laidOut;
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

/**
 * The usual answer read word by word: `n` results, each a success flag and one 32-byte word, in
 * the canonical layout. Anything else (a failed sub-call's empty data, other offsets) returns
 * null and goes through viem's decoder.
 */
export function decodeEthBalances(raw: string, n: number): (bigint | undefined)[] | null {
  if (raw.length !== 2 + 64 * (2 + 5 * n)) return null;
  const at = (k: number) => raw.slice(2 + 64 * k, 66 + 64 * k);
  if (at(0) !== THIRTY_TWO || at(1) !== word(n)) return null;
  const out: (bigint | undefined)[] = [];
  for (let i = 0; i < n; i++) {
    // Each (success, bytes) result: flag, the bytes' offset (0x40), length (32), the word.
    const k = 2 + n + 4 * i;
    const flag = at(k);
    if (at(2 + i) !== word(n * 32 + i * 128) || at(k + 1) !== SIXTY_FOUR) return null;
    if (at(k + 2) !== THIRTY_TWO || (flag !== ZERO && flag !== ONE)) return null;
    out.push(flag === ONE ? BigInt(`0x${at(k + 3)}`) : undefined);
  }
  return out;
}
