import { encodeFunctionData, encodeFunctionResult, type Hex, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchNativeBalances } from '../src/derive/index.js';
import { decodeEthBalances, encodeEthBalanceCalls } from '../src/derive/native-balances.js';
import { type AnvilInstance, compileContracts, startAnvil } from '../src/devnet/index.js';
import { createRpcClient, type RpcCall, type RpcClient } from '../src/rpc/index.js';
import { startScriptedNode } from './support/scripted-node.js';

/**
 * Native balances read for each indexed batch: through Multicall3's getEthBalance (one eth_call per
 * 500 addresses) where the chain has it, exact at the batch's block, and with the former answers
 * wherever it does not: before Multicall3's code exists, on a node that rejects the multicall, on
 * a node without the block's state (read at latest, said so).
 */
const MULTICALL3 = '0xca11bde05977b3631167028862be2a173976ca11';
const abi = parseAbi([
  'function getEthBalance(address addr) view returns (uint256 balance)',
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
]);
const addresses = Array.from(
  { length: 600 },
  (_, i) => `0x${(0xb00000 + i).toString(16).padStart(40, '0')}`,
);
const hex = (n: bigint) => `0x${n.toString(16)}`;

let anvil: AnvilInstance;
let rpc: RpcClient;
/** Block 1: the balances set, no Multicall3 code yet; block 3: transfers to a third, code present. */
const before = 1n;
const after = 3n;

/** The client, recording each JSON-RPC method sent (a batch's calls one by one). */
function recording(inner: RpcClient): { rpc: RpcClient; sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    rpc: {
      ...inner,
      request: (method, params, opts) => {
        sent.push(method);
        return inner.request(method, params, opts);
      },
      batch: (calls: readonly RpcCall[], opts) => {
        for (const c of calls) sent.push(c.method);
        return inner.batch(calls, opts);
      },
    },
  };
}

async function balancesAt(block: bigint): Promise<Map<string, bigint>> {
  const values = await rpc.batch<string>(
    addresses.map((a) => ({ method: 'eth_getBalance', params: [a, hex(block)] })),
  );
  return new Map(addresses.map((a, i) => [a, BigInt(values[i] as string)]));
}

beforeAll(async () => {
  const [node, contracts] = await Promise.all([startAnvil(), compileContracts()]);
  anvil = node;
  rpc = createRpcClient({ url: anvil.rpcUrl, maxAttempts: 2 });
  for (const [i, a] of addresses.entries()) {
    await rpc.request('anvil_setBalance', [a, hex(BigInt(i) * 10n ** 15n + 7n)]);
  }
  await rpc.request('evm_mine', []);
  // anvil's later state edits land in the newest block's state: keep block 1 out of their way.
  await rpc.request('evm_mine', []);
  await rpc.request('anvil_setCode', [MULTICALL3, contracts.Multicall3!.deployedBytecode]);
  const [from] = await rpc.request<string[]>('eth_accounts', []);
  await rpc.request('evm_setAutomine', [false]);
  for (const [i, a] of addresses.entries()) {
    if (i % 3 === 0) {
      await rpc.request('eth_sendTransaction', [{ from, to: a, value: hex(BigInt(i) * 3n + 1n) }]);
    }
  }
  await rpc.request('evm_mine', []);
  expect(BigInt(await rpc.request<string>('eth_blockNumber', []))).toBe(after);
}, 120_000);
afterAll(async () => {
  await rpc?.close();
  await anvil?.stop();
});

describe('fetchNativeBalances on a node with Multicall3', () => {
  it('reads every balance at the block through one eth_call per 500 addresses', async () => {
    const { rpc: counted, sent } = recording(rpc);
    const got = await fetchNativeBalances(counted, addresses, after, { multicall3: MULTICALL3 });
    expect(got.atLatest).toBe(false);
    expect(got.balances).toEqual(await balancesAt(after));
    expect(sent).toEqual(['eth_call', 'eth_call']);
  });

  it('before Multicall3 has code (0x answers) reads each with eth_getBalance, exact at that block', async () => {
    const { rpc: counted, sent } = recording(rpc);
    const got = await fetchNativeBalances(counted, addresses, before, { multicall3: MULTICALL3 });
    const expected = await balancesAt(before);
    expect(got.balances).toEqual(expected);
    // The block's own balances, not the later ones.
    expect(expected.get(addresses[3]!)).not.toBe((await balancesAt(after)).get(addresses[3]!));
    expect(sent.filter((m) => m === 'eth_getBalance')).toHaveLength(600);
  });

  it('without Multicall3 on the chain, eth_getBalance each', async () => {
    const { rpc: counted, sent } = recording(rpc);
    const got = await fetchNativeBalances(counted, addresses.slice(0, 5), after);
    expect(got.balances).toEqual(
      new Map([...(await balancesAt(after))].filter(([a]) => addresses.indexOf(a) < 5)),
    );
    expect(sent).toEqual(Array(5).fill('eth_getBalance'));
  });
});

describe('encodeEthBalanceCalls', () => {
  it('lays out the same aggregate3 calldata as viem, for 1, 3 and 500 addresses of any case', () => {
    for (const n of [1, 3, 500]) {
      const chunk = addresses
        .slice(0, n)
        .map((a, i) => (i % 2 ? a.toUpperCase().replace('0X', '0x') : a));
      const calls = chunk.map((a) => ({
        target: MULTICALL3 as Hex,
        allowFailure: true,
        callData: encodeFunctionData({
          abi,
          functionName: 'getEthBalance',
          args: [a.toLowerCase() as Hex],
        }),
      }));
      expect(encodeEthBalanceCalls(MULTICALL3, chunk)).toBe(
        encodeFunctionData({ abi, functionName: 'aggregate3', args: [calls] }),
      );
    }
  });
});

describe('decodeEthBalances', () => {
  const answer = (results: { success: boolean; returnData: Hex }[]) =>
    encodeFunctionResult({ abi, functionName: 'aggregate3', result: results });
  const amount = (v: bigint) => `0x${v.toString(16).padStart(64, '0')}` as Hex;

  it('reads what viem encodes: values, a failed flag with a word, 1 and 500 results', () => {
    const values = Array.from({ length: 500 }, (_, i) => BigInt(i) * 10n ** 18n + 3n);
    expect(
      decodeEthBalances(answer(values.map((v) => ({ success: true, returnData: amount(v) }))), 500),
    ).toEqual(values);
    expect(
      decodeEthBalances(
        answer([
          { success: true, returnData: amount(2n ** 255n) },
          { success: false, returnData: amount(9n) },
        ]),
        2,
      ),
    ).toEqual([2n ** 255n, undefined]);
  });

  it('leaves any other layout to the general decoder (null): empty data, wrong count, odd words', () => {
    const good = answer([{ success: true, returnData: amount(5n) }]);
    expect(decodeEthBalances(good, 2)).toBeNull();
    expect(decodeEthBalances(answer([{ success: false, returnData: '0x' }]), 1)).toBeNull();
    expect(decodeEthBalances(`${good.slice(0, -64)}${'0'.repeat(63)}`, 1)).toBeNull();
    // A success flag that is neither 0 nor 1.
    const flagAt = 2 + 64 * 3;
    expect(
      decodeEthBalances(`${good.slice(0, flagAt)}${'0'.repeat(63)}2${good.slice(flagAt + 64)}`, 1),
    ).toBeNull();
  });
});

describe('fetchNativeBalances on nodes that refuse part of it', () => {
  const latest = (a: string) => BigInt(`0x${a.slice(-4)}`) * 11n;
  /** Answers aggregate3 of getEthBalance with `latest` per address. */
  const multicallAnswer = (data: Hex): Hex => {
    const targets = [...data.matchAll(/4d2301cc0{24}([0-9a-f]{40})/g)].map((m) => `0x${m[1]}`);
    return encodeFunctionResult({
      abi,
      functionName: 'aggregate3',
      result: targets.map((t) => ({
        success: true,
        returnData: `0x${latest(t).toString(16).padStart(64, '0')}` as Hex,
      })),
    });
  };

  it('a node without the block state: one refused multicall and one probe, then all at latest', async () => {
    const node = await startScriptedNode((call) => {
      const tag = call.params[1];
      if (tag !== 'latest') {
        return { error: { code: -32602, message: 'BlockOutOfRangeError: block height is 9' } };
      }
      if (call.method === 'eth_call') {
        return { result: multicallAnswer((call.params[0] as { data: Hex }).data) };
      }
      return { result: hex(latest(call.params[0] as string)) };
    });
    const client = createRpcClient({ url: node.url, maxAttempts: 1 });
    try {
      const got = await fetchNativeBalances(client, addresses, 5n, { multicall3: MULTICALL3 });
      expect(got.atLatest).toBe(true);
      expect(got.balances).toEqual(new Map(addresses.map((a) => [a, latest(a)])));
      // Not 600 refused eth_getBalance calls per batch (what such a node cost before).
      expect(node.calls.map((c) => `${c.method} ${c.params[1]}`)).toEqual([
        'eth_call 0x5',
        'eth_call 0x5',
        'eth_getBalance 0x5',
        'eth_call latest',
        'eth_call latest',
      ]);
    } finally {
      await client.close();
      await node.close();
    }
  });

  it('a node that rejects the multicall but has the state: eth_getBalance at the block', async () => {
    const atBlock = (a: string) => BigInt(`0x${a.slice(-3)}`) + 5n;
    const node = await startScriptedNode((call) =>
      call.method === 'eth_call'
        ? { error: { code: -32000, message: 'gas limit reached' } }
        : { result: hex(atBlock(call.params[0] as string)) },
    );
    const client = createRpcClient({ url: node.url, maxAttempts: 1 });
    try {
      const got = await fetchNativeBalances(client, addresses, 5n, { multicall3: MULTICALL3 });
      expect(got.atLatest).toBe(false);
      expect(got.balances).toEqual(new Map(addresses.map((a) => [a, atBlock(a)])));
      expect(node.calls.every((c) => c.params[1] === '0x5')).toBe(true);
    } finally {
      await client.close();
      await node.close();
    }
  });
});
