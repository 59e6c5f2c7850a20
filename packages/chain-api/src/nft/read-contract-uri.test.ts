import { describe, expect, it } from 'vitest';
import type { RpcClient } from '../rpc/index.js';
import { RpcResponseError, RpcTransportError } from '../rpc/index.js';
import { NftError } from './errors.js';
import { readCollectionInfo, readTokenUri } from './read-contract-uri.js';

/** A node whose every eth_call fails with `error`. */
function failingNode(error: Error): RpcClient {
  return {
    label: 'http://node.example',
    request: async () => {
      throw error;
    },
    batch: async () => {
      throw error;
    },
    health: () => ({
      ok: false,
      consecutiveFailures: 1,
      lastError: error.message,
      lastSuccessAt: undefined,
    }),
    close: async () => {},
  };
}

const contract = '0x00000000000000000000000000000000000000aa';

describe('reading NFT contracts through the node client', () => {
  it('blames the node, not the token, when the node cannot be reached', async () => {
    const down = failingNode(new RpcTransportError('eth_call', 'connection failed (ECONNREFUSED)'));
    const error = await readTokenUri(down, contract, 1n, 'erc721').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NftError);
    expect((error as NftError).code).toBe('RPC_UNAVAILABLE');
    await expect(readCollectionInfo(down, contract)).rejects.toBeInstanceOf(RpcTransportError);
  });

  it('blames the token when its contract reverts', async () => {
    const reverts = failingNode(new RpcResponseError('eth_call', 3, 'execution reverted'));
    const error = await readTokenUri(reverts, contract, 1n, 'erc721').catch((e: unknown) => e);
    expect((error as NftError).code).toBe('URI_CALL_FAILED');
    expect(await readCollectionInfo(reverts, contract)).toEqual({ name: null, symbol: null });
  });
});
