import { decodeFunctionResult, encodeFunctionData, type Hex, parseAbi } from 'viem';
import { type RpcClient, RpcError, RpcTooLargeError } from '../rpc/index.js';
import { limitText } from '../text/limit-text.js';
import { NftError } from './errors.js';
import { substituteTokenId } from './resolve-uri.js';

/** Longest collection name or symbol stored, in code points (as token names). */
const collectionTextLimit = 200;

const nftAbi = parseAbi([
  'function tokenURI(uint256 tokenId) view returns (string)',
  'function uri(uint256 id) view returns (string)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
]);

type NftFunction = 'tokenURI' | 'uri' | 'name' | 'symbol';

/** `eth_call` of a string getter at the latest block. */
async function readString(
  client: RpcClient,
  contract: string,
  functionName: NftFunction,
  args: readonly [bigint] | readonly [] = [],
): Promise<string> {
  const data = encodeFunctionData({ abi: nftAbi, functionName, args } as Parameters<
    typeof encodeFunctionData<typeof nftAbi>
  >[0]);
  const result = await client.request<Hex>('eth_call', [{ to: contract, data }, 'latest']);
  return decodeFunctionResult({ abi: nftAbi, functionName, data: result }) as string;
}

/**
 * Reads a token's metadata URI from its contract: `tokenURI` for ERC721 (falling back to `uri`),
 * `uri` for ERC1155 (falling back to `tokenURI`) with `{id}` substituted. A revert or an empty
 * answer is an `NftError` with code `URI_CALL_FAILED`; an answer over the NFT client's limit is
 * `TOO_LARGE`; an unreachable node is `RPC_UNAVAILABLE` (the token is not at fault).
 *
 * @example
 * await readTokenUri(client, '0xabc...', 1n, 'erc721'); // 'ipfs://Qm.../1'
 */
export async function readTokenUri(
  client: RpcClient,
  contract: string,
  tokenId: bigint,
  standard: 'erc721' | 'erc1155',
): Promise<string> {
  const order =
    standard === 'erc1155' ? (['uri', 'tokenURI'] as const) : (['tokenURI', 'uri'] as const);
  let firstError: unknown;
  for (const functionName of order) {
    try {
      const value = await readString(client, contract, functionName, [tokenId]);
      const uri = value.replaceAll('\u0000', '').trim();
      if (uri === '')
        throw new NftError('URI_CALL_FAILED', `${functionName}() returned an empty string`);
      return substituteTokenId(uri, tokenId);
    } catch (error) {
      // The contract's own answer is too big to read: final for this token, not the node's fault.
      if (error instanceof RpcTooLargeError) {
        throw new NftError('TOO_LARGE', `${functionName}(${tokenId}) answer is too large to read`);
      }
      if (isTransportFailure(error)) {
        throw new NftError('RPC_UNAVAILABLE', 'node did not answer', shortMessage(error));
      }
      firstError ??= error;
    }
  }
  if (firstError instanceof NftError) throw firstError;
  throw new NftError('URI_CALL_FAILED', `${order[0]}(${tokenId}) failed`, shortMessage(firstError));
}

/**
 * Reads a collection's `name()` and `symbol()`; each is null when the call reverts or is absent
 * (common for ERC1155). Transport failures are thrown so the caller can retry later.
 */
export async function readCollectionInfo(
  client: RpcClient,
  contract: string,
): Promise<{ name: string | null; symbol: string | null }> {
  const [name, symbol] = await Promise.all(
    (['name', 'symbol'] as const).map(async (functionName) => {
      try {
        const value = await readString(client, contract, functionName);
        const text = value.replaceAll('\u0000', '').trim();
        return text === '' ? null : limitText(text, collectionTextLimit);
      } catch (error) {
        if (isTransportFailure(error)) throw error;
        return null;
      }
    }),
  );
  return { name: name ?? null, symbol: symbol ?? null };
}

/**
 * The node could not be reached or answered garbage at the transport level (as opposed to the
 * contract reverting or returning nothing, which is the token's problem): any RPC failure but a
 * JSON-RPC error the node gave as final (a revert, an unknown method).
 */
function isTransportFailure(error: unknown): boolean {
  if (error instanceof RpcTooLargeError) return false; // the contract's answer, not the node
  return error instanceof RpcError && (error.code !== 'RPC_RESPONSE' || error.retryable);
}

function shortMessage(error: unknown): string {
  if (error && typeof error === 'object' && 'shortMessage' in error)
    return String(error.shortMessage);
  return error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
}
