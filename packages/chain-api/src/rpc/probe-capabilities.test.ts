import { describe, expect, it } from 'vitest';
import type { RpcClient } from './create-rpc-client.js';
import { CapabilityUnknownError, probeCapabilities } from './probe-capabilities.js';
import { RpcMalformedResponseError, RpcResponseError } from './rpc-errors.js';

/**
 * A node whose debug trace method answers with `traceAnswers` in turn (the last one repeats);
 * `trace_block` answers with `parity` (default: method not found).
 */
function node(traceAnswers: (() => unknown)[], parity: () => unknown = noParity) {
  const blocks: string[] = [];
  const parityBlocks: string[] = [];
  let n = 0;
  const rpc = {
    async request(method: string, params: unknown[]) {
      if (method === 'eth_blockNumber') return '0x10';
      if (method === 'eth_getCode') return '0x';
      if (method === 'eth_getBlockReceipts') return [];
      if (method === 'trace_block') {
        parityBlocks.push(params[0] as string);
        return parity();
      }
      if (method === 'debug_traceBlockByNumber') {
        blocks.push(params[0] as string);
        const answer = traceAnswers[Math.min(n++, traceAnswers.length - 1)] as () => unknown;
        return answer();
      }
      throw new Error(`unexpected ${method}`);
    },
  } as unknown as RpcClient;
  return { rpc, blocks, parityBlocks };
}
function noParity(): never {
  throw new RpcResponseError('trace_block', -32601, 'the method trace_block does not exist');
}
const fail = (code: number, message: string) => () => {
  throw new RpcResponseError('debug_traceBlockByNumber', code, message);
};
const ok = () => [];
const opts = { retryDelayMs: 1 };

describe('probeCapabilities', () => {
  it('a transient -32000 on the first probe is retried (on an older block): traces on', async () => {
    const { rpc, blocks } = node([fail(-32000, 'server error'), ok]);
    expect((await probeCapabilities(rpc, opts)).traces).toBe(true);
    expect(blocks).toEqual(['0x10', '0xf']);
  });

  it('method not found / not available turns traces off at once', async () => {
    for (const answer of [
      fail(-32601, 'the method debug_traceBlockByNumber does not exist/is not available'),
      fail(-32000, 'method not supported'),
      fail(-32602, 'invalid argument 1: unknown tracer'),
      () => {
        throw new RpcMalformedResponseError('debug', 'result failed validation repeatedly', false);
      },
    ]) {
      const { rpc, blocks } = node([answer]);
      expect((await probeCapabilities(rpc, opts)).traces).toBe(false);
      expect(blocks).toHaveLength(1);
    }
  });

  it('errors that persist leave the capability unknown (an error), never false', async () => {
    const { rpc, blocks } = node([fail(-32000, 'server error')]);
    await expect(probeCapabilities(rpc, opts)).rejects.toBeInstanceOf(CapabilityUnknownError);
    expect(blocks).toHaveLength(4);
  });

  it('Parity trace_block served: traces on through it, the replaying method not asked', async () => {
    const { rpc, blocks, parityBlocks } = node([ok], () => []);
    expect(await probeCapabilities(rpc, opts)).toMatchObject({
      traces: true,
      traceMethod: 'parity',
    });
    expect(parityBlocks).toEqual(['0x10']);
    expect(blocks).toEqual([]);
  });

  it('trace_block refused: the debug method, probed as before', async () => {
    const { rpc } = node([ok]);
    expect(await probeCapabilities(rpc, opts)).toMatchObject({
      traces: true,
      traceMethod: 'debug',
    });
  });

  it('trace_block failing transiently: retried, then the debug method is used if it works', async () => {
    const busy = () => {
      throw new RpcResponseError('trace_block', -32000, 'server error');
    };
    const { rpc, parityBlocks } = node([ok], busy);
    expect(await probeCapabilities(rpc, opts)).toMatchObject({
      traces: true,
      traceMethod: 'debug',
    });
    expect(parityBlocks).toHaveLength(2);
  });

  it('trace_block unknown and debug refused: unknown (an error), never traces off', async () => {
    const busy = () => {
      throw new RpcResponseError('trace_block', -32000, 'server error');
    };
    const { rpc } = node(
      [fail(-32601, 'the method debug_traceBlockByNumber does not exist')],
      busy,
    );
    await expect(probeCapabilities(rpc, opts)).rejects.toBeInstanceOf(CapabilityUnknownError);
  });

  it('trace_block answering the wrong shape every time counts as absent', async () => {
    const { rpc } = node([ok], () => ({ not: 'an array' }));
    // The client's validation turns repeated wrong shapes into a non-retryable malformed error.
    const strict = {
      ...rpc,
      async request(method: string, params: unknown[], o?: { validate?: (r: unknown) => boolean }) {
        const r = await rpc.request(method, params, o);
        if (o?.validate && !o.validate(r)) {
          throw new RpcMalformedResponseError(method, 'result failed validation repeatedly', false);
        }
        return r;
      },
    } as RpcClient;
    expect(await probeCapabilities(strict, opts)).toMatchObject({
      traces: true,
      traceMethod: 'debug',
    });
  });
});
