import {
  decodeFunctionData,
  encodeAbiParameters,
  encodeFunctionResult,
  type Hex,
  parseAbi,
} from 'viem';
import { describe, expect, it } from 'vitest';
import { type RpcCall, type RpcClient, RpcResponseError } from '../rpc/index.js';
import { readBalances } from './read-balances.js';

const abi = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
]);
const MULTICALL = '0xca11bde05977b3631167028862be2a173976ca11';
const BROKEN = '0x00000000000000000000000000000000000000bb';

/** A node where token `0x..0a` answers balanceOf = last byte of the wallet, BROKEN reverts. */
function fakeNode(opts: { maxMulticall?: number; noMulticallCode?: boolean }) {
  const log: string[] = [];
  const balanceOf = (token: string, data: Hex): { ok: boolean; data: Hex } => {
    if (token.toLowerCase() === BROKEN) return { ok: false, data: '0x' };
    const { args } = decodeFunctionData({ abi, data });
    const wallet = (args as [Hex])[0];
    return {
      ok: true,
      data: encodeAbiParameters([{ type: 'uint256' }], [BigInt(`0x${wallet.slice(-2)}`)]),
    };
  };
  const answer = (c: RpcCall): Hex => {
    const [{ to, data }] = c.params as [{ to: string; data: Hex }];
    if (to === MULTICALL) {
      log.push('multicall');
      if (opts.noMulticallCode) return '0x';
      const { args } = decodeFunctionData({ abi, data });
      const calls = (args as unknown as [{ target: Hex; callData: Hex }[]])[0];
      if (calls.length > (opts.maxMulticall ?? 1e9))
        throw new RpcResponseError('eth_call', -32000, 'out of gas');
      return encodeFunctionResult({
        abi,
        functionName: 'aggregate3',
        result: calls.map((k) => {
          const r = balanceOf(k.target, k.callData);
          return { success: r.ok, returnData: r.data };
        }),
      });
    }
    log.push('single');
    const r = balanceOf(to, data);
    if (!r.ok) throw new RpcResponseError('eth_call', 3, 'execution reverted');
    return r.data;
  };
  const rpc: RpcClient = {
    label: 'fake',
    request: async <T>(method: string, params: unknown[]) => answer({ method, params }) as T,
    batch: async <T>(calls: readonly RpcCall[]) => calls.map(answer) as T[],
    health: () => ({ ok: true, consecutiveFailures: 0, lastError: undefined, lastSuccessAt: 0 }),
    close: async () => {},
  };
  return { rpc, log };
}

const wallet = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
const pairs = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    token: i % 7 === 3 ? BROKEN : '0x000000000000000000000000000000000000000a',
    wallet: wallet(i % 256),
  }));
const expected = (n: number) =>
  pairs(n).map((p, i) => (p.token === BROKEN ? null : BigInt(i % 256)));

describe('readBalances', () => {
  it('reads through Multicall3 in one call per 500 pairs; a reverting token is null', async () => {
    const { rpc, log } = fakeNode({});
    const cost = { reads: 0, calls: 0 };
    expect(await readBalances(rpc, MULTICALL, pairs(600), 9n, cost)).toEqual(expected(600));
    expect(log).toEqual(['multicall', 'multicall']);
    expect(cost).toEqual({ reads: 600, calls: 2 });
  });

  it('splits a multicall the node rejects (gas cap) until it fits', async () => {
    const { rpc, log } = fakeNode({ maxMulticall: 100 });
    expect(await readBalances(rpc, MULTICALL, pairs(300), 9n)).toEqual(expected(300));
    expect(log.filter((l) => l === 'single')).toEqual([]);
  });

  it('asks pair by pair when Multicall3 has no code at that block, or none is deployed', async () => {
    const a = fakeNode({ noMulticallCode: true });
    expect(await readBalances(a.rpc, MULTICALL, pairs(20), 9n)).toEqual(expected(20));
    expect(a.log.filter((l) => l === 'single')).toHaveLength(20);
    const b = fakeNode({});
    expect(await readBalances(b.rpc, null, pairs(20), 9n)).toEqual(expected(20));
    expect(b.log).not.toContain('multicall');
  });

  it('reads nothing for no pairs', async () => {
    const { rpc, log } = fakeNode({});
    expect(await readBalances(rpc, MULTICALL, [], 9n)).toEqual([]);
    expect(log).toEqual([]);
  });
});
