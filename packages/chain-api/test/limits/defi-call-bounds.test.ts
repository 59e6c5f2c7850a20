import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveChainConfig } from '../../src/chains/index.js';
import { CALL_GAS, intrinsicGas, MAX_ETH_CALL_GAS } from '../../src/rpc/call-gas.js';
import { createRpcClient } from '../../src/rpc/create-rpc-client.js';
import { MULTICALL3_ADDRESS } from '../../src/rpc/probe-capabilities.js';
import { readCalls } from '../../src/rpc/read-calls.js';
import { startTestApi, type TestApi } from '../support/api-harness.js';
import { type ScriptedNode, startScriptedNode } from '../support/scripted-node.js';
import { addr, insertNftHoldings } from '../support/seed-store.js';

/**
 * A wallet holding 600 fake v3 position NFTs of a contract whose view functions revert (or burn
 * gas): a `defi/positions` request reads at most DEFI_MAX_CONTRACTS ids, with a `POSITIONS_CAPPED`
 * warning, and every `eth_call` the service sends carries a gas limit.
 */
const IDS = 600;
const CAP = 100;
const wallet = addr('defi-fake-holder');
const manager = addr('defi-fake-npm');
let api: TestApi;
let node: ScriptedNode;

beforeAll(async () => {
  node = await startScriptedNode((call) => {
    if (call.method === 'eth_call') return { error: { code: 3, message: 'execution reverted' } };
    if (call.method === 'eth_getBalance') return { result: '0x0' };
    return { error: { code: -32601, message: 'method not found' } };
  });
  const chain = {
    ...resolveChainConfig(31337),
    rpcUrl: node.url,
    multicall3: MULTICALL3_ADDRESS as `0x${string}`,
  };
  api = await startTestApi({ chains: [chain], limits: { maxDefiContracts: CAP } });
  await insertNftHoldings(
    api.t.db,
    Array.from({ length: IDS }, (_, i) => ({
      chainId: 31337,
      wallet,
      contract: manager,
      tokenId: String(i + 1),
      standard: 'erc721' as const,
      balance: '1',
      lastAcquired: 1_700_000_000,
    })),
  );
  await api.t.db.query(
    `insert into contract_probes (chain_id, address, probe, result, block) values (31337, $1, 'defi', $2, 1)`,
    [manager, `uniswap_v3_npm:${addr('defi-fake-factory')}`],
  );
}, 120_000);
afterAll(async () => {
  await api?.close();
  await node?.close();
});

const gasOf = (params: unknown[]) => {
  const call = params[0] as { gas?: string };
  return call.gas === undefined ? undefined : Number.parseInt(call.gas, 16);
};
const dataOf = (params: unknown[]) => String((params[0] as { data?: string }).data ?? '');

describe('DeFi positions of a wallet stuffed with fake position NFTs', () => {
  it('reads at most DEFI_MAX_CONTRACTS ids, warns, and caps the gas of every eth_call', async () => {
    const res = await api.get(`/v1/evm/defi/positions/${wallet}?chain_ids=31337`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { positions: unknown[]; warnings?: { code: string }[] };
    expect(body.positions).toEqual([]);
    expect(body.warnings?.map((w) => w.code)).toContain('POSITIONS_CAPPED');
    const calls = node.calls.filter((c) => c.method === 'eth_call');
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) {
      const gas = gasOf(c.params);
      expect(gas).toBeGreaterThan(0);
      expect(gas).toBeLessThanOrEqual(MAX_ETH_CALL_GAS + intrinsicGas(dataOf(c.params)));
    }
    // Asked one by one in the end (the multicalls revert): ownerOf and positions per id read.
    const direct = calls.filter((c) => (c.params[0] as { to: string }).to === manager);
    expect(direct.length).toBeLessThanOrEqual(2 * CAP);
    for (const c of direct) {
      expect(gasOf(c.params)).toBe(CALL_GAS + intrinsicGas(dataOf(c.params)));
    }
  });

  it('a caller-set gas is kept; a Multicall3 batch gets gas per sub-call up to the cap', async () => {
    const rpc = createRpcClient({ url: node.url, maxAttempts: 1 });
    try {
      const before = node.calls.length;
      await rpc
        .request('eth_call', [{ to: manager, data: '0x01', gas: '0x5208' }, 'latest'])
        .catch(() => {});
      expect(gasOf(node.calls[before]!.params)).toBe(21_000);
      const three = [1, 2, 3].map(() => ({ to: manager, data: '0x8da5cb5b' as const }));
      const at = node.calls.length;
      await readCalls(rpc, MULTICALL3_ADDRESS, three, 5n);
      expect(gasOf(node.calls[at]!.params)).toBe(
        3 * CALL_GAS + intrinsicGas(dataOf(node.calls[at]!.params)),
      );
      const many = Array.from({ length: 200 }, () => ({
        to: manager,
        data: '0x8da5cb5b' as const,
      }));
      const next = node.calls.length;
      await readCalls(rpc, MULTICALL3_ADDRESS, many, 5n);
      expect(gasOf(node.calls[next]!.params)).toBe(
        MAX_ETH_CALL_GAS + intrinsicGas(dataOf(node.calls[next]!.params)),
      );
    } finally {
      await rpc.close();
    }
  });
});
