import { describe, expect, it } from 'vitest';
import type { RpcClient } from './create-rpc-client.js';
import { CapabilityUnknownError, probeCapabilities } from './probe-capabilities.js';
import { RpcMalformedResponseError, RpcResponseError } from './rpc-errors.js';

/** A node whose trace method answers with `traceAnswers` in turn (the last one repeats). */
function node(traceAnswers: (() => unknown)[]) {
  const blocks: string[] = [];
  let n = 0;
  const rpc = {
    async request(method: string, params: unknown[]) {
      if (method === 'eth_blockNumber') return '0x10';
      if (method === 'eth_getCode') return '0x';
      if (method === 'eth_getBlockReceipts') return [];
      if (method === 'debug_traceBlockByNumber') {
        blocks.push(params[0] as string);
        const answer = traceAnswers[Math.min(n++, traceAnswers.length - 1)] as () => unknown;
        return answer();
      }
      throw new Error(`unexpected ${method}`);
    },
  } as unknown as RpcClient;
  return { rpc, blocks };
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
});
