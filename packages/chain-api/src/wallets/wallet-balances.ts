import type { Queryable } from '@sluice/db';
import { decodeFunctionResult, encodeFunctionData, type Hex, parseAbi } from 'viem';
import type { DerivedBatch } from '../derive/index.js';
import { type BalancePair, readBalances } from '../reconcile/read-balances.js';
import type { RpcClient } from '../rpc/index.js';

const ownerAbi = parseAbi(['function ownerOf(uint256) view returns (address)']);
const s = (v: bigint | number) => v.toString();
const hex = (n: bigint) => `0x${n.toString(16)}`;

/** A wallet's balances read from the chain at one block (what a backfill commits). */
export interface WalletBalances {
  block: bigint;
  native: bigint;
  /** token -> balanceOf (null: unreadable). */
  erc20: Map<string, bigint | null>;
  /** `${contract}|${id}` -> balanceOf(wallet, id) (null: unreadable). */
  erc1155: Map<string, bigint | null>;
  /** `${contract}|${id}` of ERC721 ids the wallet owns at `block`. */
  erc721: Set<string>;
}

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

/**
 * Writes a backfilled wallet's balances inside the commit transaction: the chain's values at
 * `b.block` replace what the head follower's deltas gave, Transfer-derived facts (first receipt,
 * has sent) merge with the stored ones, an unreadable ERC20 keeps its deltas floored at 0.
 *
 * @example
 * await writeWalletBalances(tx, chainId, wallet, batch, balances);
 */
export async function writeWalletBalances(
  tx: Queryable,
  chainId: number,
  wallet: string,
  batch: DerivedBatch,
  b: WalletBalances,
): Promise<void> {
  const at = s(b.block);
  await tx.query(
    `insert into native_balances (wallet, chain_id, amount, updated_block) values ($1, $2, $3, $4)
     on conflict (wallet, chain_id) do update set amount = excluded.amount, updated_block = excluded.updated_block`,
    [wallet, chainId, s(b.native), at],
  );
  const deltas = new Map([...batch.erc20Deltas.values()].map((d) => [d.token, d]));
  const e20 = [...b.erc20].flatMap(([token, v]) => {
    const d = deltas.get(token);
    // Unreadable: the history's deltas floored at 0; a pair only the follower stored keeps its row.
    const amount = v ?? (d ? (d.delta > 0n ? d.delta : 0n) : null);
    if (amount === null) return [];
    return [
      { token, amount, acquired: d?.acquired?.toISOString() ?? null, sent: d?.sent === true },
    ];
  });
  await tx.query(
    `insert into erc20_balances as b (wallet, chain_id, token, amount, updated_block, first_acquired, has_sent)
     select $1, $2, u.t, u.a, $3, u.fa, u.hs
       from unnest($4::text[], $5::numeric[], $6::timestamptz[], $7::bool[]) as u(t, a, fa, hs)
     on conflict (wallet, chain_id, token) do update
       set amount = excluded.amount, updated_block = excluded.updated_block,
           first_acquired = least(b.first_acquired, excluded.first_acquired),
           has_sent = b.has_sent or excluded.has_sent`,
    [
      wallet,
      chainId,
      at,
      e20.map((r) => r.token),
      e20.map((r) => s(r.amount)),
      e20.map((r) => r.acquired),
      e20.map((r) => r.sent),
    ],
  );
  const ids = new Map([...batch.nft1155.values()].map((d) => [`${d.contract}|${d.tokenId}`, d]));
  const e1155 = [...b.erc1155]
    .filter(([, v]) => v !== null)
    .map(([k, v]) => {
      const [contract, id] = k.split('|') as [string, string];
      const d = ids.get(k);
      return { contract, id, amount: v as bigint, acquired: d?.acquired ?? null };
    });
  await tx.query(
    `insert into nft_holdings as h (wallet, chain_id, contract, token_id, standard, balance,
                                    last_acquired, last_acquired_block, updated_block)
     select $1, $2, u.c, u.id, 'erc1155', u.a, coalesce(u.t, 'epoch'::timestamptz), coalesce(u.b, -1), $3
       from unnest($4::text[], $5::numeric[], $6::numeric[], $7::timestamptz[], $8::int8[]) as u(c, id, a, t, b)
      where u.a > 0
     on conflict (wallet, chain_id, contract, token_id) do update
       set balance = excluded.balance, updated_block = excluded.updated_block,
           last_acquired = case when excluded.last_acquired_block > h.last_acquired_block
                                then excluded.last_acquired else h.last_acquired end,
           last_acquired_block = greatest(h.last_acquired_block, excluded.last_acquired_block)`,
    [
      wallet,
      chainId,
      at,
      e1155.map((r) => r.contract),
      e1155.map((r) => r.id),
      e1155.map((r) => s(r.amount)),
      e1155.map((r) => r.acquired?.time.toISOString() ?? null),
      e1155.map((r) => (r.acquired ? s(r.acquired.block) : null)),
    ],
  );
  const zero = e1155.filter((r) => r.amount === 0n);
  if (zero.length > 0) {
    await tx.query(
      `delete from nft_holdings h using unnest($3::text[], $4::numeric[]) as u(c, id)
        where h.chain_id = $2 and h.wallet = $1 and h.contract = u.c and h.token_id = u.id`,
      [wallet, chainId, zero.map((r) => r.contract), zero.map((r) => r.id)],
    );
  }
  const moves = [...batch.nft721.values()].filter((m) =>
    b.erc721.has(`${m.contract}|${m.tokenId}`),
  );
  await tx.query(
    `insert into nft_holdings (wallet, chain_id, contract, token_id, standard, balance,
                               last_acquired, last_acquired_block, updated_block)
     select $1, $2, u.c, u.id, 'erc721', 1, u.t, u.b, u.b
       from unnest($3::text[], $4::numeric[], $5::timestamptz[], $6::int8[]) as u(c, id, t, b)
     on conflict (wallet, chain_id, contract, token_id) do nothing`,
    [
      wallet,
      chainId,
      moves.map((m) => m.contract),
      moves.map((m) => s(m.tokenId)),
      moves.map((m) => m.time.toISOString()),
      moves.map((m) => s(m.block)),
    ],
  );
}
