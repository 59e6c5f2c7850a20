import { describe, expect, it } from 'vitest';
import type { ChainCapabilities, RpcCall, RpcClient } from '../rpc/index.js';
import type { ParityTrace } from '../rpc/parity-trace.js';
import type { Hex, RpcBlockWithTxs, RpcReceipt, RpcTx } from '../rpc/rpc-types.js';
import { fetchRangeTraces, mayMoveValueInside } from './range-traces.js';

const A = '0x00000000000000000000000000000000000000aa' as Hex;
const B = '0x00000000000000000000000000000000000000bb' as Hex;
const C = '0x00000000000000000000000000000000000000cc' as Hex;

function tx(hash: string, opts: Partial<RpcTx> = {}): RpcTx {
  return {
    hash: hash as Hex,
    from: A,
    to: B,
    value: '0x5',
    input: '0x',
    transactionIndex: '0x0',
    ...opts,
  };
}
function receipt(t: RpcTx, gasUsed: string): RpcReceipt {
  return {
    transactionHash: t.hash,
    transactionIndex: t.transactionIndex,
    blockHash: '0x01',
    status: '0x1',
    gasUsed: gasUsed as Hex,
    contractAddress: null,
    logs: [],
  };
}
function block(n: number, txs: RpcTx[]): RpcBlockWithTxs {
  return {
    number: `0x${n.toString(16)}` as Hex,
    hash: `0x${n}` as Hex,
    parentHash: '0x00',
    timestamp: '0x0',
    miner: C,
    transactions: txs,
  };
}

/** A node answering trace calls from `answers` (by method), recording every call. */
function node(answers: Partial<Record<string, (params: unknown[]) => unknown>>) {
  const calls: RpcCall[] = [];
  const answer = (c: RpcCall) => {
    calls.push(c);
    const f = answers[c.method];
    if (!f) throw new Error(`unexpected ${c.method}`);
    return f(c.params);
  };
  const rpc = {
    async request(method: string, params: unknown[]) {
      return answer({ method, params });
    },
    async batch(list: readonly RpcCall[]) {
      return list.map(answer);
    },
  } as unknown as RpcClient;
  return { rpc, calls };
}

/** trace_block of a block whose one transaction (A -> contract B) pays C 7 wei inside. */
const parityOf = (): ParityTrace[] => [
  {
    type: 'call',
    action: { callType: 'call', from: A, to: B, value: '0x0' },
    traceAddress: [],
    transactionPosition: 0,
  },
  {
    type: 'call',
    action: { callType: 'call', from: B, to: C, value: '0x7' },
    traceAddress: [0],
    transactionPosition: 0,
  },
  {
    type: 'reward',
    action: {},
    traceAddress: [],
    transactionPosition: null,
  } as unknown as ParityTrace,
];

const parityCaps: ChainCapabilities = {
  traces: true,
  traceMethod: 'parity',
  blockReceipts: true,
  multicall3: null,
};
const debugCaps: ChainCapabilities = { traces: true, blockReceipts: true, multicall3: null };

describe('mayMoveValueInside', () => {
  const plain = tx('0x1');
  it('a plain transfer that used exactly 21,000 gas ran no code', () => {
    expect(mayMoveValueInside(plain, receipt(plain, '0x5208'))).toBe(false);
  });
  it('anything else may: more gas (a contract receive, a delegated account), input, creation, deposits, no receipt', () => {
    expect(mayMoveValueInside(plain, receipt(plain, '0x5209'))).toBe(true);
    const call = tx('0x2', { input: '0xa9059cbb' });
    expect(mayMoveValueInside(call, receipt(call, '0x5208'))).toBe(true);
    const create = tx('0x3', { to: null });
    expect(mayMoveValueInside(create, receipt(create, '0x5208'))).toBe(true);
    const deposit = tx('0x4', { type: '0x7e' });
    expect(mayMoveValueInside(deposit, receipt(deposit, '0x5208'))).toBe(true);
    expect(mayMoveValueInside(plain, undefined)).toBe(true);
  });
});

describe('fetchRangeTraces', () => {
  const contractCall = tx('0xc1', { input: '0x12345678' });
  const plain = tx('0xp1');
  const blocks = [block(1, [plain]), block(2, [contractCall]), block(3, [])];
  const receipts = [[receipt(plain, '0x5208')], [receipt(contractCall, '0xc350')], []];

  it('traces only blocks where value may move inside, with trace_block when the node has it', async () => {
    const { rpc, calls } = node({ trace_block: () => parityOf() });
    const traces = await fetchRangeTraces(rpc, parityCaps, blocks, receipts);
    expect(calls).toEqual([{ method: 'trace_block', params: ['0x2'] }]);
    expect(traces[0]).toEqual([{ type: 'CALL', from: A, to: B, value: '0x5' }]);
    expect(traces[1]?.[0]?.calls?.[0]).toMatchObject({
      type: 'CALL',
      from: B,
      to: C,
      value: '0x7',
    });
    expect(traces[2]).toEqual([]);
  });

  it('without Parity traces: debug_traceBlockByNumber for the same blocks', async () => {
    const frame = {
      type: 'CALL',
      from: A,
      to: B,
      calls: [{ type: 'CALL', from: B, to: C, value: '0x7' }],
    };
    const { rpc, calls } = node({
      debug_traceBlockByNumber: () => [{ txHash: '0xc1', result: frame }],
    });
    const traces = await fetchRangeTraces(rpc, debugCaps, blocks, receipts);
    expect(calls.map((c) => c.method)).toEqual(['debug_traceBlockByNumber']);
    expect(calls[0]?.params[0]).toBe('0x2');
    expect(traces[1]).toEqual([frame]);
  });

  it('a trace_block answer missing a transaction: that block is traced by replay instead', async () => {
    const frame = { type: 'CALL', from: A, to: B };
    const { rpc, calls } = node({
      trace_block: () => [],
      debug_traceBlockByNumber: () => [{ txHash: '0xc1', result: frame }],
    });
    const traces = await fetchRangeTraces(rpc, parityCaps, blocks, receipts);
    expect(calls.map((c) => c.method)).toEqual(['trace_block', 'debug_traceBlockByNumber']);
    expect(traces[1]).toEqual([frame]);
  });

  it('a node error is not read as "no internal transfers"', async () => {
    const { rpc } = node({
      trace_block: () => {
        throw new Error('node down');
      },
    });
    await expect(fetchRangeTraces(rpc, parityCaps, blocks, receipts)).rejects.toThrow('node down');
  });
});
