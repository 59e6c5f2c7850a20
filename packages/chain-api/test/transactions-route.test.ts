import { encodeAbiParameters, encodeEventTopics, encodeFunctionData, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './support/api-harness.js';
import { assertMatchesReference, referenceAvailable } from './support/reference-schemas.js';
import {
  blockHash,
  insertBlocks,
  insertLogs,
  insertTransactions,
  type SeedBlock,
  type SeedTransaction,
} from './support/seed-chain.js';
import { addr, txHash } from './support/seed-store.js';

const wallet = addr('tx-wallet');
const other = addr('tx-other');
const token = addr('tx-token');
const erc20 = parseAbi([
  'function transfer(address to, uint256 amount)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'function multicall(bytes[] data)',
]);
const t0 = 1_700_000_000;

let api: TestApi;
let hashSeq = 1;
// Expected order of the wallet's transactions: newest block time, then chain id, block, index desc.
const expected: { time: number; chainId: number; block: number; index: number; hash: string }[] =
  [];

function sortExpected() {
  expected.sort(
    (a, b) => b.time - a.time || b.chainId - a.chainId || b.block - a.block || b.index - a.index,
  );
}

/** Blocks 1..n on a chain; chains 1 and 8453 share timestamps every 3rd block (ties across chains). */
async function seedChain(chainId: number, blocks: number, firstBlock = 1) {
  const headers: SeedBlock[] = [];
  const txs: SeedTransaction[] = [];
  for (let n = firstBlock; n < firstBlock + blocks; n++) {
    const time = t0 + Math.floor(n / 3) * 12 + (chainId === 1 ? 0 : n % 3);
    headers.push({ chainId, number: n, time });
    for (let i = 0; i < 3; i++) {
      const hash = txHash(hashSeq++);
      const kind = (n + i) % 4; // 0 sent, 1 received, 2 self, 3 unrelated
      const from = kind === 1 || kind === 3 ? other : wallet;
      const to = kind === 0 || kind === 3 ? other : wallet;
      txs.push({
        chainId,
        blockNumber: n,
        txIndex: i,
        hash,
        from,
        to,
        value: String(n * 1000 + i),
      });
      if (kind !== 3) expected.push({ time, chainId, block: n, index: i, hash });
    }
  }
  await insertBlocks(api.t.db, headers);
  await insertTransactions(api.t.db, txs);
}

beforeAll(async () => {
  api = await startTestApi();
  await seedChain(1, 40);
  await seedChain(8453, 40);
  // A contract creation by the wallet, and a reverted decoded call with logs, on the devnet chain.
  await insertBlocks(api.t.db, [
    { chainId: 31337, number: 5, time: t0 - 100 },
    { chainId: 31337, number: 6, time: t0 - 50 },
  ]);
  const transferInput = encodeFunctionData({
    abi: erc20,
    functionName: 'transfer',
    args: [other, 5n],
  });
  const multicallInput = encodeFunctionData({
    abi: erc20,
    functionName: 'multicall',
    args: [['0x01', '0x0203']],
  });
  await insertTransactions(api.t.db, [
    {
      chainId: 31337,
      blockNumber: 5,
      txIndex: 0,
      hash: txHash(900_001),
      from: wallet,
      to: null,
      contractAddress: token,
      input: '0x6080',
      gasPrice: null,
    },
    {
      chainId: 31337,
      blockNumber: 6,
      txIndex: 0,
      hash: txHash(900_002),
      from: wallet,
      to: token,
      input: transferInput,
      gasUsed: '51234',
    },
    {
      chainId: 31337,
      blockNumber: 6,
      txIndex: 1,
      hash: txHash(900_003),
      from: wallet,
      to: token,
      input: multicallInput,
      status: 0,
    },
  ]);
  await insertLogs(api.t.db, [
    {
      chainId: 31337,
      blockNumber: 6,
      txIndex: 0,
      logIndex: 0,
      address: token,
      topics: encodeEventTopics({
        abi: erc20,
        eventName: 'Transfer',
        args: { from: wallet, to: other },
      }) as string[],
      data: encodeAbiParameters([{ type: 'uint256' }], [5n]),
    },
    {
      chainId: 31337,
      blockNumber: 6,
      txIndex: 0,
      logIndex: 1,
      address: token,
      topics: [`0x${'ab'.repeat(32)}`],
      data: '0x',
    },
  ]);
  sortExpected();
});

afterAll(async () => {
  await api?.close();
});

type Tx = Record<string, unknown> & { hash: string; logs: Record<string, unknown>[] };
type Body = Record<string, unknown> & { transactions: Tx[]; next_offset?: string };
const get = async (query: string, who: string = wallet) => {
  const res = await api.get(`/v1/evm/transactions/${who}${query}`);
  return { res, body: res.status === 200 ? ((await res.json()) as Body) : undefined };
};

describe('GET /v1/evm/transactions/{address}', () => {
  it('pages every sent/received transaction exactly once, newest first across chains', async () => {
    const seen: string[] = [];
    let offset: string | undefined;
    let pages = 0;
    do {
      const { res, body } = await get(
        `?chain_ids=1,8453&limit=37${offset ? `&offset=${offset}` : ''}`,
      );
      expect(res.status).toBe(200);
      if (referenceAvailable()) assertMatchesReference('TransactionsResponse', body);
      seen.push(...body!.transactions.map((t) => t.hash));
      offset = body!.next_offset;
      pages++;
    } while (offset && pages < 50);
    expect(seen).toEqual(expected.map((e) => e.hash));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('default page size is 100 and larger limits are reduced to 100', async () => {
    const { body } = await get('?chain_ids=1,8453');
    expect(body!.transactions).toHaveLength(100);
    expect(body!.next_offset).toBeDefined();
    const big = await get('?chain_ids=1,8453&limit=5000');
    expect(big.body!.transactions).toHaveLength(100);
  });

  it('shapes the peer fields: hex values, block hash and time, chain name, success', async () => {
    const { body } = await get('?chain_ids=1&limit=1');
    const tx = body!.transactions[0]!;
    const top = expected.find((e) => e.chainId === 1)!;
    expect(tx).toMatchObject({
      address: wallet,
      hash: top.hash,
      block_number: String(top.block),
      block_hash: blockHash(1, top.block),
      block_time: new Date(top.time * 1000).toISOString().replace('.000Z', 'Z'),
      chain: 'ethereum',
      chain_id: 1,
      index: String(top.index),
      value: `0x${(top.block * 1000 + top.index).toString(16)}`,
      gas_price: '0x3b9aca00',
      gas_used: '0x5208',
      data: '0x',
      success: true,
      logs: [],
    });
    expect(body!.request_time).toBeTypeOf('string');
    expect(body!.wallet_address).toBe(wallet);
  });

  it('decode=true decodes calldata and known logs; raw logs always present', async () => {
    const plain = await get('?chain_ids=31337');
    const txs = plain.body!.transactions;
    expect(txs.map((t) => t.hash)).toEqual([txHash(900_003), txHash(900_002), txHash(900_001)]);
    expect(txs[0]!.success).toBe(false);
    expect(txs[0]!.decoded).toBeUndefined();
    expect(txs[1]!.logs).toHaveLength(2);
    expect(txs[1]!.logs[0]!.decoded).toBeUndefined();
    // Contract creation: no `to`, the created address instead.
    expect(txs[2]!.to).toBeUndefined();
    expect(txs[2]!.contract_address).toBe(token);
    expect(txs[2]!.gas_price).toBeUndefined();

    const { body } = await get('?chain_ids=31337&decode=true');
    if (referenceAvailable()) assertMatchesReference('TransactionsResponse', body);
    const [multi, transfer] = body!.transactions;
    expect(transfer!.decoded).toEqual({
      name: 'transfer',
      inputs: [
        { name: 'to', type: 'address', value: other },
        { name: 'value', type: 'uint256', value: '5' },
      ],
    });
    expect(transfer!.logs[0]!.decoded).toEqual({
      name: 'Transfer',
      inputs: [
        { name: 'from', type: 'address', value: wallet },
        { name: 'to', type: 'address', value: other },
        { name: 'value', type: 'uint256', value: '5' },
      ],
    });
    expect(transfer!.logs[1]!.decoded).toBeUndefined();
    expect(transfer!.logs[1]!.topics).toEqual([`0x${'ab'.repeat(32)}`]);
    // Array parameters are arrays of strings, as the peer writes them.
    expect(multi!.decoded).toEqual({
      name: 'multicall',
      inputs: [{ name: 'data', type: 'bytes[]', value: ['0x01', '0x0203'] }],
    });
  });

  it('a wallet with no transactions gets an empty list; unsupported chains warn', async () => {
    const { body } = await get('?chain_ids=1,999999', addr('nobody'));
    expect(body!.transactions).toEqual([]);
    expect(body!.next_offset).toBeUndefined();
    expect(body!.warnings).toEqual([
      expect.objectContaining({ code: 'UNSUPPORTED_CHAIN_IDS', chain_ids: [999999] }),
    ]);
  });

  it('keeps paging exactly once while newer transactions are appended', async () => {
    const first = await get('?chain_ids=1&limit=10');
    const seen = first.body!.transactions.map((t) => t.hash);
    // New blocks on chain 1 arrive between pages: they are newer, so they never enter later pages.
    await seedChain(1, 5, 41);
    sortExpected();
    let offset = first.body!.next_offset;
    while (offset) {
      const { body } = await get(`?chain_ids=1&limit=10&offset=${offset}`);
      seen.push(...body!.transactions.map((t) => t.hash));
      offset = body!.next_offset;
    }
    const before = expected.filter((e) => e.chainId === 1 && e.block <= 40).map((e) => e.hash);
    expect(seen).toEqual(before);
  });

  it('rejects bad input with plain-text 400s naming the parameter', async () => {
    const cases: [string, RegExp][] = [
      ['/v1/evm/transactions/0x123', /address/],
      [`/v1/evm/transactions/${wallet}?decode=yes`, /decode/],
      [`/v1/evm/transactions/${wallet}?limit=0`, /limit/],
      [`/v1/evm/transactions/${wallet}?limit=abc`, /limit/],
      [`/v1/evm/transactions/${wallet}?offset=garbage`, /offset/],
      [`/v1/evm/transactions/${wallet}?chain_ids=ethereum`, /chain/],
    ];
    for (const [path, pattern] of cases) {
      const res = await api.get(path);
      expect(res.status, path).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/text\/plain/);
      expect(await res.text()).toMatch(pattern);
    }
    // A cursor of another wallet's feed is refused, not silently reused.
    const { body } = await get('?chain_ids=1&limit=1');
    const res = await api.get(
      `/v1/evm/transactions/${other}?chain_ids=1&limit=1&offset=${body!.next_offset}`,
    );
    expect(res.status).toBe(400);
  });

  it('requires an API key', async () => {
    const res = await api.get(`/v1/evm/transactions/${wallet}`, {});
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: expect.any(String) });
  });
});
