import type { Queryable } from '@sluice/db';
import { decodeFunctionResult, encodeFunctionData, type Hex, parseAbi } from 'viem';
import type { DerivedBatch } from '../derive/index.js';
import { type BalancePair, readBalances } from '../reconcile/read-balances.js';
import type { RpcClient } from '../rpc/index.js';
import type { WalletBalances } from '../store/wallets/wallet-balance-rows.js';

const ownerAbi = parseAbi(['function ownerOf(uint256) view returns (address)']);
const hex = (n: bigint) => `0x${n.toString(16)}`;

export type { WalletBalances };

/**
 * Reads at `block` the native balance, `balanceOf` of every ERC20 and ERC1155 id the wallet's
 * history touched (plus those already stored for it by the head follower) and `ownerOf` of every
 * ERC721 id its history left it holding.
 *
 * @example
 * const b = await readWalletBalances(tx, rpc, multicall3, chainId, wallet, batch, 1234n);
 */
export async function readWalletBalances(
  db: Queryable,
  rpc: RpcClient,
  multicall3: string | null,
  chainId: number,
  wallet: string,
  batch: DerivedBatch,
  block: bigint,
): Promise<WalletBalances> {
  const stored20 = await db.query<{ token: string }>(
    'select token from erc20_balances where chain_id = $1 and wallet = $2',
    [chainId, wallet],
  );
  const stored1155 = await db.query<{ contract: string; token_id: string }>(
    `select contract, token_id::text as token_id from nft_holdings
      where chain_id = $1 and wallet = $2 and standard = 'erc1155'`,
    [chainId, wallet],
  );
  const tokens = [
    ...new Set([
      ...[...batch.erc20Deltas.values()].map((d) => d.token),
      ...stored20.rows.map((r) => r.token),
    ]),
  ];
  const ids = new Map<string, { contract: string; id: bigint }>();
  for (const d of batch.nft1155.values())
    ids.set(`${d.contract}|${d.tokenId}`, { contract: d.contract, id: d.tokenId });
  for (const r of stored1155.rows)
    ids.set(`${r.contract}|${r.token_id}`, { contract: r.contract, id: BigInt(r.token_id) });
  const pairs: BalancePair[] = [
    ...tokens.map((token) => ({ token, wallet })),
    ...[...ids.values()].map((x) => ({ token: x.contract, wallet, id: x.id })),
  ];
  const owned = [...batch.nft721.values()].filter((m) => m.owner === wallet);
  const [values, native, owners] = await Promise.all([
    readBalances(rpc, multicall3, pairs, block),
    rpc.request<string>('eth_getBalance', [wallet, hex(block)]),
    rpc
      .batch<string | null>(
        owned.map((m) => ({
          method: 'eth_call',
          params: [
            {
              to: m.contract,
              data: encodeFunctionData({
                abi: ownerAbi,
                functionName: 'ownerOf',
                args: [m.tokenId],
              }),
            },
            hex(block),
          ],
        })),
        { validate: () => true },
      )
      .catch(() => owned.map(() => null)),
  ]);
  const out: WalletBalances = {
    block,
    native: BigInt(native === '0x' ? '0x0' : native),
    erc20: new Map(),
    erc1155: new Map(),
    erc721: new Set(),
  };
  let i = 0;
  for (const t of tokens) out.erc20.set(t, values[i++] ?? null);
  for (const k of ids.keys()) out.erc1155.set(k, values[i++] ?? null);
  owned.forEach((m, k) => {
    const owner = decodeOwner(owners[k]);
    // An unreadable ownerOf keeps what the Transfer events say.
    if (owner === null || owner === wallet) out.erc721.add(`${m.contract}|${m.tokenId}`);
  });
  return out;
}

function decodeOwner(data: string | null | undefined): string | null {
  if (typeof data !== 'string' || data.length !== 66) return null;
  try {
    const a = decodeFunctionResult({ abi: ownerAbi, functionName: 'ownerOf', data: data as Hex });
    return a.toLowerCase();
  } catch {
    return null;
  }
}
