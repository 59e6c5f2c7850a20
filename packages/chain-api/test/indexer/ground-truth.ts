import type { Queryable } from '@sluice/db';
import { encodeFunctionData, type Hex, parseAbi } from 'viem';

const abi = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function ownerOf(uint256) view returns (address)',
  'function balanceOf(address, uint256) view returns (uint256)',
]);

export interface Mismatch {
  kind: string;
  key: string;
  stored: string;
  chain: string;
}

async function batchCall(
  url: string,
  calls: { method: string; params: unknown[] }[],
): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let i = 0; i < calls.length; i += 200) {
    const chunk = calls.slice(i, i + 200);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chunk.map((c, k) => ({ jsonrpc: '2.0', id: k, ...c }))),
    });
    const body = (await res.json()) as { id: number; result?: unknown; error?: unknown }[];
    body.sort((a, b) => a.id - b.id);
    for (const r of body) out.push(r.error ? null : r.result);
  }
  return out;
}

/**
 * Compares every stored balance/holding of `chainId` with the node's state at the indexed block:
 * ERC20 balanceOf, eth_getBalance, ERC721 ownerOf (for every stored holding and every listed
 * token id), ERC1155 balanceOf. Returns the mismatches (empty = ground truth holds).
 */
export async function checkGroundTruth(
  db: Queryable,
  url: string,
  chainId: number,
  opts: { erc721?: { contract: string; ids: bigint[] }[] } = {},
): Promise<{ mismatches: Mismatch[]; checked: number; block: bigint }> {
  const { rows: cp } = await db.query<{ indexed_block: string }>(
    'select indexed_block from checkpoints where chain_id = $1',
    [chainId],
  );
  const block = BigInt(cp[0]?.indexed_block ?? '0');
  const tag = `0x${block.toString(16)}`;
  const mismatches: Mismatch[] = [];
  let checked = 0;

  const erc20 = await db.query<{ wallet: string; token: string; amount: string }>(
    `select e.wallet, e.token, e.amount from erc20_balances e where chain_id = $1`,
    [chainId],
  );
  const r20 = await batchCall(
    url,
    erc20.rows.map((r) => ({
      method: 'eth_call',
      params: [
        {
          to: r.token,
          data: encodeFunctionData({ abi, functionName: 'balanceOf', args: [r.wallet as Hex] }),
        },
        tag,
      ],
    })),
  );
  erc20.rows.forEach((r, i) => {
    checked++;
    const v = r20[i] ? BigInt(r20[i] as string).toString() : 'error';
    if (v !== r.amount)
      mismatches.push({ kind: 'erc20', key: `${r.wallet}/${r.token}`, stored: r.amount, chain: v });
  });

  const native = await db.query<{ wallet: string; amount: string }>(
    'select wallet, amount from native_balances where chain_id = $1',
    [chainId],
  );
  const rn = await batchCall(
    url,
    native.rows.map((r) => ({ method: 'eth_getBalance', params: [r.wallet, tag] })),
  );
  native.rows.forEach((r, i) => {
    checked++;
    const v = rn[i] ? BigInt(rn[i] as string).toString() : 'error';
    if (v !== r.amount)
      mismatches.push({ kind: 'native', key: r.wallet, stored: r.amount, chain: v });
  });

  const nfts = await db.query<{
    wallet: string;
    contract: string;
    token_id: string;
    standard: string;
    balance: string;
  }>('select wallet, contract, token_id, standard, balance from nft_holdings where chain_id = $1', [
    chainId,
  ]);
  const rnft = await batchCall(
    url,
    nfts.rows.map((r) => ({
      method: 'eth_call',
      params: [
        {
          to: r.contract,
          data:
            r.standard === 'erc721'
              ? encodeFunctionData({ abi, functionName: 'ownerOf', args: [BigInt(r.token_id)] })
              : encodeFunctionData({
                  abi,
                  functionName: 'balanceOf',
                  args: [r.wallet as Hex, BigInt(r.token_id)],
                }),
        },
        tag,
      ],
    })),
  );
  nfts.rows.forEach((r, i) => {
    checked++;
    const raw = rnft[i] as string | null;
    const v =
      r.standard === 'erc721'
        ? raw
          ? `0x${raw.slice(26)}`
          : 'error'
        : raw
          ? BigInt(raw).toString()
          : 'error';
    const stored = r.standard === 'erc721' ? r.wallet : r.balance;
    if (v !== stored)
      mismatches.push({
        kind: r.standard,
        key: `${r.wallet}/${r.contract}/${r.token_id}`,
        stored,
        chain: v,
      });
  });

  // Every live ERC721 token must be held by its owner in the store (catches missing rows).
  for (const c of opts.erc721 ?? []) {
    const owners = await batchCall(
      url,
      c.ids.map((id) => ({
        method: 'eth_call',
        params: [
          {
            to: c.contract,
            data: encodeFunctionData({ abi, functionName: 'ownerOf', args: [id] }),
          },
          tag,
        ],
      })),
    );
    const { rows } = await db.query<{ token_id: string; wallet: string }>(
      'select token_id, wallet from nft_holdings where chain_id = $1 and contract = $2',
      [chainId, c.contract],
    );
    const stored = new Map(rows.map((r) => [r.token_id, r.wallet]));
    c.ids.forEach((id, i) => {
      checked++;
      const o = owners[i] as string | null;
      const owner = o ? `0x${o.slice(26)}` : 'none';
      const s = stored.get(id.toString()) ?? 'none';
      if (owner !== s)
        mismatches.push({
          kind: 'erc721-owner',
          key: `${c.contract}/${id}`,
          stored: s,
          chain: owner,
        });
    });
  }
  return { mismatches, checked, block };
}

/** A stable digest of every derived table of a chain, to compare two indexing runs. */
export async function storeDigest(db: Queryable, chainId: number): Promise<Record<string, string>> {
  const tables: [string, string][] = [
    ['activity', 'wallet, block_number, tx_index, log_index, sub_index'],
    ['erc20_balances', 'wallet, token'],
    ['native_balances', 'wallet'],
    ['nft_holdings', 'wallet, contract, token_id'],
    ['tokens', 'address'],
    ['blocks', 'number'],
    ['transactions', 'block_number, tx_index'],
    ['logs', 'block_number, log_index'],
    ['pools', 'address'],
    ['pool_states', 'pool, block_number'],
    ['nft_sales', 'block_number, log_index, token_id'],
  ];
  const out: Record<string, string> = {};
  // Row text of timestamptz depends on the session time zone: pin it for the comparison.
  await db.query(`set time zone 'UTC'`);
  for (const [t, order] of tables) {
    // Columns that depend on batch boundaries or wall time are left out.
    const cols =
      t === 'tokens'
        ? 'chain_id, address, standard, name, symbol, decimals, status, first_block'
        : t === 'native_balances'
          ? 'wallet, chain_id, amount'
          : '*';
    const { rows } = await db.query<{ d: string | null; n: string }>(
      `select md5(string_agg(x::text, '|' order by ${order})) as d, count(*) as n
         from (select ${cols} from ${t} where chain_id = $1) x`,
      [chainId],
    );
    out[t] = `${rows[0]?.n}:${rows[0]?.d}`;
  }
  return out;
}
