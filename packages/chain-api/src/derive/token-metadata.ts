import {
  decodeAbiParameters,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  hexToString,
  parseAbi,
} from 'viem';
import type { RpcClient } from '../rpc/index.js';
import { RpcResponseError } from '../rpc/index.js';
import { limitText, wellFormed } from '../text/limit-text.js';

/** What the `tokens` table stores for one contract. */
export interface TokenMetadata {
  address: string;
  standard: 'erc20' | 'erc721' | 'erc1155' | 'unknown';
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  status: 'ok' | 'partial' | 'failed';
}

const multicallAbi = parseAbi([
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
]);
const probeAbi = parseAbi([
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function supportsInterface(bytes4 id) view returns (bool)',
]);
const CALLS: Hex[] = [
  encodeFunctionData({ abi: probeAbi, functionName: 'name' }),
  encodeFunctionData({ abi: probeAbi, functionName: 'symbol' }),
  encodeFunctionData({ abi: probeAbi, functionName: 'decimals' }),
  encodeFunctionData({ abi: probeAbi, functionName: 'supportsInterface', args: ['0x80ac58cd'] }),
  encodeFunctionData({ abi: probeAbi, functionName: 'supportsInterface', args: ['0xd9b67a26'] }),
];
/** Tokens per Multicall3 call (5 sub-calls each). */
const TOKENS_PER_MULTICALL = 40;

type Result = { success: boolean; data: Hex };

/**
 * Reads name/symbol/decimals and the ERC721/1155 interface flags of new token contracts, in
 * Multicall3 batches when `multicall3` is deployed (else one batched eth_call per function).
 * Tolerates `bytes32` names/symbols, reverting getters and garbage answers: what can't be read is
 * null and the status says so.
 *
 * @example
 * const meta = await fetchTokenMetadata(rpc, ['0xa0b8...'], { multicall3, hints });
 */
export async function fetchTokenMetadata(
  rpc: RpcClient,
  addresses: readonly string[],
  opts: { multicall3: string | null; hints?: ReadonlyMap<string, string>; block?: string },
): Promise<TokenMetadata[]> {
  if (addresses.length === 0) return [];
  const block = opts.block ?? 'latest';
  const results: Result[][] = opts.multicall3
    ? await viaMulticall(rpc, opts.multicall3, addresses, block)
    : await viaEthCall(rpc, addresses, block);
  return addresses.map((address, i) =>
    interpret(address, results[i] ?? [], opts.hints?.get(address)),
  );
}

async function viaMulticall(
  rpc: RpcClient,
  multicall3: string,
  addresses: readonly string[],
  block: string,
): Promise<Result[][]> {
  const chunks: string[][] = [];
  for (let i = 0; i < addresses.length; i += TOKENS_PER_MULTICALL) {
    chunks.push(addresses.slice(i, i + TOKENS_PER_MULTICALL));
  }
  const answers = await rpc.batch<Hex>(
    chunks.map((chunk) => ({
      method: 'eth_call',
      params: [
        {
          to: multicall3,
          data: encodeFunctionData({
            abi: multicallAbi,
            functionName: 'aggregate3',
            args: [
              chunk.flatMap((target) =>
                CALLS.map((callData) => ({
                  target: target as Hex,
                  allowFailure: true,
                  callData,
                })),
              ),
            ],
          }),
        },
        block,
      ],
    })),
    { validate: (r) => typeof r === 'string' },
  );
  return chunks.flatMap((chunk, c) => {
    let decoded: readonly { success: boolean; returnData: Hex }[] = [];
    try {
      decoded = decodeFunctionResult({
        abi: multicallAbi,
        functionName: 'aggregate3',
        data: answers[c] as Hex,
      });
    } catch {
      decoded = [];
    }
    return chunk.map((_, t) =>
      CALLS.map((_, k) => {
        const r = decoded[t * CALLS.length + k];
        return r
          ? { success: r.success, data: r.returnData }
          : { success: false, data: '0x' as Hex };
      }),
    );
  });
}

async function viaEthCall(
  rpc: RpcClient,
  addresses: readonly string[],
  block: string,
): Promise<Result[][]> {
  // A reverting eth_call is a JSON-RPC error for that item only; ask item by item inside a batch.
  const calls = addresses.flatMap((to) =>
    CALLS.map((data) => ({ method: 'eth_call', params: [{ to, data }, block] })),
  );
  const settled = await Promise.all(
    calls.map((c) =>
      rpc
        .request<Hex>(c.method, c.params)
        .then((data): Result => ({ success: true, data }))
        .catch((error: unknown): Result => {
          if (error instanceof RpcResponseError) return { success: false, data: '0x' };
          throw error;
        }),
    ),
  );
  return addresses.map((_, i) => settled.slice(i * CALLS.length, (i + 1) * CALLS.length));
}

function interpret(address: string, r: Result[], hint: string | undefined): TokenMetadata {
  const name = r[0]?.success ? decodeText(r[0].data) : null;
  const symbol = r[1]?.success ? decodeText(r[1].data) : null;
  const decimals = r[2]?.success ? decodeDecimals(r[2].data) : null;
  const is721 = r[3]?.success ? decodeBool(r[3].data) : false;
  const is1155 = r[4]?.success ? decodeBool(r[4].data) : false;
  const standard: TokenMetadata['standard'] = is1155
    ? 'erc1155'
    : is721
      ? 'erc721'
      : hint === 'erc20' || hint === 'erc721' || hint === 'erc1155'
        ? hint
        : decimals !== null
          ? 'erc20'
          : 'unknown';
  const wanted = standard === 'erc20' ? [name, symbol, decimals] : [name, symbol];
  const got = wanted.filter((v) => v !== null).length;
  const status = got === wanted.length ? 'ok' : got === 0 ? 'failed' : 'partial';
  return {
    address,
    standard,
    name,
    symbol,
    decimals: standard === 'erc20' ? decimals : decimals,
    status,
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
const controlChars = /[\u0000-\u001f\u007f\ufffd]/g;

/** Longest token name or symbol stored, in code points. */
export const tokenTextLimit = 200;

/** An ABI string, or a bytes32 (MKR-style) string; null when neither decodes to clean text. */
export function decodeText(data: Hex): string | null {
  if (data.length < 66) return null;
  if (data.length > 130) {
    try {
      const [s] = decodeAbiParameters([{ type: 'string' }], data);
      return clean(s);
    } catch {
      // fall through to bytes32
    }
  }
  if (data.length === 66) {
    try {
      return clean(hexToString(data, { size: 32 }));
    } catch {
      return null;
    }
  }
  return null;
}

function clean(s: string): string | null {
  // Drop NULs/control characters that bytes32 padding and hostile tokens carry (and lone
  // surrogates, as U+FFFD); cap at 200 code points without splitting a character.
  const t = wellFormed(s).replace(controlChars, '').trim();
  return t.length === 0 ? null : limitText(t, tokenTextLimit);
}

function decodeDecimals(data: Hex): number | null {
  if (data.length !== 66) return null;
  const v = BigInt(data);
  return v <= 255n ? Number(v) : null;
}

function decodeBool(data: Hex): boolean {
  return data.length === 66 && BigInt(data) === 1n;
}
