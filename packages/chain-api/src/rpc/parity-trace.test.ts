import { describe, expect, it } from 'vitest';
import { internalTransfers } from '../derive/native-transfers.js';
import {
  MalformedTraceError,
  type ParityTrace,
  parityBlockFrames,
  parityToCallFrame,
} from './parity-trace.js';

const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';
const C = '0x00000000000000000000000000000000000000cc';
const D = '0x00000000000000000000000000000000000000dd';

const call = (
  path: number[],
  from: string,
  to: string,
  value: string,
  extra: Partial<ParityTrace> = {},
  callType = 'call',
): ParityTrace => ({
  type: 'call',
  action: {
    callType,
    from: from as `0x${string}`,
    to: to as `0x${string}`,
    value: value as `0x${string}`,
  },
  traceAddress: path,
  ...extra,
});

describe('parityToCallFrame', () => {
  it('builds the callTracer tree: nesting, types, values, reverted subtrees, creates and selfdestructs', () => {
    const traces: ParityTrace[] = [
      call([], A, B, '0x1'),
      call([0], B, C, '0x2'),
      call([0, 0], C, D, '0x3'), // under a reverted frame: no transfer
      call([1], B, D, '0x4', {}, 'delegatecall'), // no value moves in a delegatecall
      {
        type: 'create',
        action: { from: B, value: '0x5', creationMethod: 'create2' },
        result: { address: C as `0x${string}` },
        traceAddress: [2],
      },
      {
        type: 'suicide',
        action: { address: C as `0x${string}`, refundAddress: A as `0x${string}`, balance: '0x6' },
        traceAddress: [2, 0],
      },
      call([3], B, A, '0x7'),
    ];
    (traces[1] as ParityTrace).error = 'Reverted';
    const root = parityToCallFrame(traces);
    expect(root.type).toBe('CALL');
    expect(root.calls?.map((c) => c.type)).toEqual(['CALL', 'DELEGATECALL', 'CREATE2', 'CALL']);
    expect(root.calls?.[0]?.error).toBe('Reverted');
    expect(root.calls?.[2]?.calls?.[0]).toMatchObject({
      type: 'SELFDESTRUCT',
      from: C,
      to: A,
      value: '0x6',
    });
    expect(internalTransfers(root)).toEqual([
      { from: B, to: C, value: 5n },
      { from: C, to: A, value: 6n },
      { from: B, to: A, value: 7n },
    ]);
  });

  it('a reverted root moves nothing; a failed create has no target', () => {
    const root = parityToCallFrame([
      call([], A, B, '0x1', { error: 'Reverted' }),
      {
        type: 'create',
        action: { from: B, value: '0x9' },
        result: null,
        error: 'Out of gas',
        traceAddress: [0],
      },
    ]);
    expect(internalTransfers(root)).toEqual([]);
    expect(root.calls?.[0]?.to).toBeUndefined();
  });

  it('refuses lists that are not one tree', () => {
    expect(() => parityToCallFrame([])).toThrow(MalformedTraceError);
    expect(() => parityToCallFrame([call([], A, B, '0x0'), call([], A, B, '0x0')])).toThrow(
      MalformedTraceError,
    );
    expect(() => parityToCallFrame([call([], A, B, '0x0'), call([1, 0], A, B, '0x0')])).toThrow(
      MalformedTraceError,
    );
    expect(() => parityToCallFrame([call([], A, B, '0x0'), call([1], A, B, '0x0')])).toThrow(
      MalformedTraceError,
    );
    expect(() =>
      parityToCallFrame([
        { type: 'reward', action: { author: A } as ParityTrace['action'], traceAddress: [] },
      ]),
    ).toThrow(MalformedTraceError);
  });
});

describe('parityBlockFrames', () => {
  it('one tree per transaction in order, block rewards dropped, every transaction required', () => {
    const t = (pos: number | null, path: number[], to: string): ParityTrace => ({
      ...call(path, A, to, '0x1'),
      transactionPosition: pos,
    });
    const frames = parityBlockFrames(
      [t(0, [], B), t(0, [0], C), t(1, [], D), { ...t(null, [], A), type: 'reward' }],
      2,
    );
    expect(frames.map((f) => f.to)).toEqual([B, D]);
    expect(frames[0]?.calls?.[0]?.to).toBe(C);
    expect(() => parityBlockFrames([t(0, [], B)], 2)).toThrow(MalformedTraceError);
    expect(() => parityBlockFrames([t(2, [], B)], 2)).toThrow(MalformedTraceError);
  });
});
