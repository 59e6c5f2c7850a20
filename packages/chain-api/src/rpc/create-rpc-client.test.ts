import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultProxy, seededFaults, startFaultProxy } from '../../test/support/fault-proxy.js';
import { type AnvilInstance, startAnvil } from '../devnet/index.js';
import { createRpcClient } from './create-rpc-client.js';
import { probeCapabilities } from './probe-capabilities.js';
import { RpcResponseError, RpcTooLargeError, RpcTransportError, redactUrl } from './rpc-errors.js';

let anvil: AnvilInstance;
let proxy: FaultProxy;

beforeAll(async () => {
  anvil = await startAnvil();
  // A few blocks so there is history to read.
  await fetch(anvil.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x20'] }),
  });
  proxy = await startFaultProxy(anvil.rpcUrl);
});
afterAll(async () => {
  await proxy?.close();
  await anvil?.stop();
});

const blocks = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    method: 'eth_getBlockByNumber',
    params: [`0x${i.toString(16)}`, false],
  }));

describe('createRpcClient', () => {
  it('splits a batch whose answer is over maxResponseBytes; one call alone too large is final', async () => {
    const one = JSON.stringify(
      await createRpcClient({ url: anvil.rpcUrl }).request('eth_getBlockByNumber', ['0x1', false]),
    );
    // Room for about two blocks per answer: a batch of 30 must be split down to pairs.
    const rpc = createRpcClient({
      url: anvil.rpcUrl,
      batchSize: 30,
      maxResponseBytes: one.length * 2 + 200,
    });
    const out = await rpc.batch<{ number: string }>(blocks(30));
    expect(out.map((b) => Number(b.number))).toEqual([...Array(30).keys()]);
    // Unlimited retries, yet a single oversized answer fails at once instead of looping.
    const tiny = createRpcClient({ url: anvil.rpcUrl, maxResponseBytes: 100 });
    const t0 = performance.now();
    const error = (await tiny
      .request('eth_getBlockByNumber', ['0x1', false])
      .catch((e: unknown) => e)) as RpcTooLargeError;
    expect(error).toBeInstanceOf(RpcTooLargeError);
    expect(error.code).toBe('RPC_TOO_LARGE');
    expect(error.retryable).toBe(false);
    expect(performance.now() - t0).toBeLessThan(5_000);
  });

  it('batches calls and returns results in call order', async () => {
    const rpc = createRpcClient({ url: anvil.rpcUrl, batchSize: 7 });
    const out = await rpc.batch<{ number: string }>(blocks(30));
    expect(out.map((b) => Number(b.number))).toEqual([...Array(30).keys()]);
  });

  it.each([
    'timeout',
    'status429',
    'status500',
    'status503',
    'garbage',
    'truncate',
    'drop',
    'partial',
    'rpcError',
  ] as const)('retries through %s and returns the same answer', async (fault) => {
    proxy.setPolicy((n) => (n % 2 === 0 ? fault : 'pass'));
    const rpc = createRpcClient({
      url: proxy.url,
      batchSize: 10,
      timeoutMs: 300,
      backoffBaseMs: 5,
    });
    const out = await rpc.batch<{ hash: string }>(blocks(25));
    const direct = await createRpcClient({ url: anvil.rpcUrl }).batch<{ hash: string }>(blocks(25));
    expect(out.map((b) => b.hash)).toEqual(direct.map((b) => b.hash));
    proxy.setPolicy(() => 'pass');
  });

  it('survives a random mix of faults at a 40% rate', async () => {
    proxy.setPolicy(seededFaults(7, 0.4));
    const rpc = createRpcClient({ url: proxy.url, batchSize: 4, timeoutMs: 300, backoffBaseMs: 5 });
    const out = await rpc.batch<{ number: string }>(blocks(33));
    expect(out.map((b) => Number(b.number))).toEqual([...Array(33).keys()]);
    proxy.setPolicy(() => 'pass');
  });

  it('a batch that times out is split in halves (not sent whole again) and later batches stay small', async () => {
    const sizes: number[] = [];
    // The node answers at most 4 calls in time: any larger batch hangs.
    proxy.setPolicy((_n, body) => {
      const calls = (body.match(/"method"/g) ?? []).length;
      sizes.push(calls);
      return calls > 4 ? 'timeout' : 'pass';
    });
    const rpc = createRpcClient({
      url: proxy.url,
      batchSize: 16,
      timeoutMs: 300,
      backoffBaseMs: 5,
    });
    const out = await rpc.batch<{ number: string }>(blocks(16));
    expect(out.map((b) => Number(b.number))).toEqual([...Array(16).keys()]);
    // 16 timed out, then halves: 8, 8 (time out), then 4 x 4 answered; never 16 twice.
    expect(sizes.filter((n) => n === 16)).toHaveLength(1);
    expect(sizes.filter((n) => n === 4)).toHaveLength(4);
    sizes.length = 0;
    const again = await rpc.batch<{ number: string }>(blocks(12));
    expect(again.map((b) => Number(b.number))).toEqual([...Array(12).keys()]);
    // The method's batch size came down (and grows back by a quarter at a time: 4 answered
    // fast, so 5 is tried next).
    expect(Math.max(...sizes)).toBe(5);
    proxy.setPolicy(() => 'pass');
  });

  it('a batch whose body the node drops (EPIPE: over its size limit) is split until it fits', async () => {
    // 26 calls of ~150 KB each: anvil closes the connection on a body that large.
    const data = `0x${'ab'.repeat(150_000)}`;
    const to = '0x00000000000000000000000000000000000000aa';
    const calls = Array.from({ length: 26 }, () => ({
      method: 'eth_call',
      params: [{ to, data }, 'latest'],
    }));
    const rpc = createRpcClient({ url: anvil.rpcUrl, timeoutMs: 20_000, backoffBaseMs: 5 });
    const out = await rpc.batch<string>(calls);
    expect(out).toEqual(calls.map(() => '0x'));
  });

  it('fails fast on a deterministic JSON-RPC error', async () => {
    const rpc = createRpcClient({ url: anvil.rpcUrl });
    await expect(rpc.request('eth_noSuchMethod', [])).rejects.toBeInstanceOf(RpcResponseError);
  });

  it('retries invalid results a bounded number of times', async () => {
    const rpc = createRpcClient({ url: anvil.rpcUrl, maxInvalidAttempts: 2, backoffBaseMs: 1 });
    await expect(
      rpc.request('eth_getBlockByNumber', ['0xffffff', false], { validate: (r) => r !== null }),
    ).rejects.toThrow(/failed validation repeatedly/);
  });

  it('gives up after maxAttempts on a dead node, marks itself unhealthy, and never leaks the URL', async () => {
    const url = 'http://127.0.0.1:1/v2/SECRETKEY';
    const rpc = createRpcClient({ url, maxAttempts: 4, backoffBaseMs: 1 });
    const err = await rpc.request('eth_blockNumber', []).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcTransportError);
    expect(String((err as Error).message)).not.toContain('SECRETKEY');
    expect(rpc.health().ok).toBe(false);
    expect(redactUrl(url)).toBe('http://127.0.0.1:1/…');
  });

  it('speaks JSON-RPC over WebSocket too', async () => {
    const rpc = createRpcClient({ url: anvil.rpcUrl.replace(/^http/, 'ws') });
    try {
      const out = await rpc.batch<{ number: string }>(blocks(5));
      expect(out.map((b) => Number(b.number))).toEqual([0, 1, 2, 3, 4]);
    } finally {
      await rpc.close();
    }
  });

  it('probes capabilities', async () => {
    const rpc = createRpcClient({ url: anvil.rpcUrl });
    const caps = await probeCapabilities(rpc);
    expect(caps.blockReceipts).toBe(true);
    // anvil serves Parity trace_block: the cheaper method is chosen.
    expect(caps).toMatchObject({ traces: true, traceMethod: 'parity' });
    expect(caps.multicall3).toBeNull();
  });
});
