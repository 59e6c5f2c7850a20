import { decodeFunctionResult, encodeFunctionData, type Hex, parseAbi } from 'viem';
import type { RpcClient } from '../rpc/index.js';
import { RpcResponseError } from '../rpc/index.js';

const abi = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function balanceOf(address, uint256) view returns (uint256)',
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
]);

/** One balance to read: ERC20 `balanceOf(wallet)` or ERC1155 `balanceOf(wallet, id)`. */
export interface BalanceQuery {
  token: string;
  wallet: string;
  id?: bigint;
}

const PER_CALL = 300;

/**
 * Reads token balances at `block` (Multicall3 when deployed, else one eth_call each). Used to seed
 * the first balance of a (wallet, token) pair when indexing starts after genesis, where transfer
 * deltas alone would miss the history. Unreadable balances (reverts, missing state) are null.
 *
 * @example
 * const [b] = await fetchBalancesAt(rpc, multicall3, [{ token, wallet }], 100n);
 */
export async function fetchBalancesAt(
  rpc: RpcClient,
  multicall3: string | null,
  queries: readonly BalanceQuery[],
  block: bigint,
): Promise<(bigint | null)[]> {
  if (queries.length === 0) return [];
  const tag = `0x${block.toString(16)}`;
  const data = queries.map((q) =>
    q.id === undefined
      ? encodeFunctionData({ abi, functionName: 'balanceOf', args: [q.wallet as Hex] })
      : encodeFunctionData({ abi, functionName: 'balanceOf', args: [q.wallet as Hex, q.id] }),
  );
  const word = (r: Hex | undefined): bigint | null => (r && r.length === 66 ? BigInt(r) : null);
  try {
    if (multicall3) {
      const out: (bigint | null)[] = [];
      for (let i = 0; i < queries.length; i += PER_CALL) {
        const calls = queries.slice(i, i + PER_CALL).map((q, k) => ({
          target: q.token as Hex,
          allowFailure: true,
          callData: data[i + k] as Hex,
        }));
        const raw = await rpc.request<Hex>('eth_call', [
          {
            to: multicall3,
            data: encodeFunctionData({ abi, functionName: 'aggregate3', args: [calls] }),
          },
          tag,
        ]);
        const results = decodeFunctionResult({ abi, functionName: 'aggregate3', data: raw });
        for (const r of results) out.push(r.success ? word(r.returnData) : null);
      }
      return out;
    }
    return await Promise.all(
      queries.map((q, i) =>
        rpc
          .request<Hex>('eth_call', [{ to: q.token, data: data[i] }, tag])
          .then(word)
          .catch((error: unknown) => {
            if (error instanceof RpcResponseError) return null;
            throw error;
          }),
      ),
    );
  } catch (error) {
    // No state at that block (non-archive node) or a broken multicall: no seed, deltas only.
    if (error instanceof RpcResponseError) return queries.map(() => null);
    throw error;
  }
}
