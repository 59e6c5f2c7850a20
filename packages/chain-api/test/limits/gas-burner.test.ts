import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilInstance, startAnvil } from '../../src/devnet/index.js';
import { createRpcClient, type RpcClient } from '../../src/rpc/create-rpc-client.js';
import { isRevert, readCalls } from '../../src/rpc/read-calls.js';
import { RpcResponseError } from '../../src/rpc/rpc-errors.js';

/**
 * A contract whose every function loops forever (a fake LP token or position manager burning
 * gas in its views), on a real node: the service's `eth_call` is cut at its gas limit and reads
 * as a revert-class answer (null: "not a position"), not a node failure, and a normal contract
 * on the same node still answers.
 */
const burner = '0x00000000000000000000000000000000000b0b01';
const answerer = '0x00000000000000000000000000000000000b0b02';
let anvil: AnvilInstance;
let rpc: RpcClient;

beforeAll(async () => {
  anvil = await startAnvil();
  rpc = createRpcClient({ url: anvil.rpcUrl, maxAttempts: 2 });
  // JUMPDEST PUSH1 0 JUMP: an endless loop.
  await rpc.request('anvil_setCode', [burner, '0x5b600056']);
  // PUSH1 42 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: returns the word 42.
  await rpc.request('anvil_setCode', [answerer, '0x602a60005260206000f3']);
  await rpc.request('evm_mine', []);
}, 60_000);
afterAll(async () => {
  await rpc?.close();
  await anvil?.stop();
});

describe('eth_call gas cap on a real node', () => {
  it('a gas-burning view reads as reverted (out of gas at the cap); a normal one answers', async () => {
    const block = BigInt(await rpc.request<string>('eth_blockNumber', []));
    const [burned, answered] = await readCalls(
      rpc,
      null,
      [
        { to: burner, data: '0x99fbab88' },
        { to: answerer, data: '0x99fbab88' },
      ],
      block,
    );
    expect(burned).toBeNull();
    expect(BigInt(answered as string)).toBe(42n);
  });

  it("running out of gas is the call's own answer: not retried, not a node failure", async () => {
    const tag = `0x${BigInt(await rpc.request<string>('eth_blockNumber', [])).toString(16)}`;
    const error = await rpc
      .request('eth_call', [{ to: burner, data: '0x' }, tag])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcResponseError);
    expect((error as RpcResponseError).message).toMatch(/out ?of ?gas/i);
    expect((error as RpcResponseError).retryable).toBe(false);
    expect(isRevert(error as RpcResponseError)).toBe(true);
  });
});
