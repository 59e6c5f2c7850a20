import { describe, expect, it } from 'vitest';
import { createNodeClientRegistry } from './node-client-registry.js';
import type { NodeTransport, RpcRequestBody } from './node-transport.js';

/** A fake node per URL: answers eth_blockNumber, records every send and its timeout. */
function fakeNodes() {
  const made: { url: string; sends: { methods: string[]; timeoutMs: number }[]; closed: number }[] =
    [];
  const createTransport = (url: string): NodeTransport => {
    const wire = { url, sends: [] as { methods: string[]; timeoutMs: number }[], closed: 0 };
    made.push(wire);
    return {
      async send(body: readonly RpcRequestBody[], timeoutMs: number) {
        wire.sends.push({ methods: body.map((b) => b.method), timeoutMs });
        return body.map((b) => ({ jsonrpc: '2.0', id: b.id, result: '0x10' }));
      },
      async close() {
        wire.closed++;
      },
    };
  };
  return { made, createTransport };
}

const eth = { chainId: 1, rpcUrl: 'http://eth.example:8545' };
const base = { chainId: 8453, rpcUrl: 'http://base.example:8545' };

describe('createNodeClientRegistry', () => {
  it('gives every purpose of a node one shared transport, and each node its own', async () => {
    const { made, createTransport } = fakeNodes();
    const nodes = createNodeClientRegistry({ createTransport });
    const api = nodes.client(eth, 'api');
    expect(nodes.client(eth, 'api')).toBe(api);
    const nft = nodes.client(eth, 'nft');
    const history = nodes.client(eth, 'history');
    expect(nft).not.toBe(api);
    const indexer = nodes.open(eth.rpcUrl, { timeoutMs: 20_000 });
    await Promise.all([api, nft, history, indexer].map((c) => c?.request('eth_blockNumber', [])));
    await nodes.client(base, 'api')?.request('eth_blockNumber', []);
    expect(made.map((m) => m.url)).toEqual([eth.rpcUrl, base.rpcUrl]);
    expect(made[0]?.sends).toHaveLength(4);
    expect(nodes.client({ chainId: 10 }, 'api')).toBeUndefined();
    await nodes.close();
    expect(made.map((m) => m.closed)).toEqual([1, 1]);
  });

  it('keeps request timeouts per purpose on the shared transport', async () => {
    const { made, createTransport } = fakeNodes();
    const nodes = createNodeClientRegistry({ createTransport });
    await nodes.client(eth, 'api')?.request('eth_blockNumber', []);
    await nodes.client(eth, 'history')?.request('eth_blockNumber', []);
    await nodes.client(eth, 'nft')?.request('eth_blockNumber', []);
    await nodes.open(eth.rpcUrl, { timeoutMs: 20_000 }).request('eth_blockNumber', []);
    expect(made[0]?.sends.map((s) => s.timeoutMs)).toEqual([5_000, 10_000, 15_000, 20_000]);
    await nodes.close();
  });

  it('closing one client leaves the shared transport to the others', async () => {
    const { made, createTransport } = fakeNodes();
    const nodes = createNodeClientRegistry({ createTransport });
    const indexer = nodes.open(eth.rpcUrl);
    await indexer.close();
    expect(made[0]?.closed).toBe(0);
    expect(await nodes.client(eth, 'api')?.request('eth_blockNumber', [])).toBe('0x10');
    await nodes.close();
  });
});
