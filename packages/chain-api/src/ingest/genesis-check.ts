import type { Queryable } from '@sluice/db';
import { BaseError } from '../errors/index.js';
import { type RpcClient, RpcResponseError } from '../rpc/index.js';
import { rememberGenesis } from '../store/checkpoints.js';

/**
 * The node serves another chain than the one in the store under the same chain id (a new devnet,
 * a replaced node, or a reorg deeper than the stored window). Indexing that chain stops: retrying
 * cannot help, only a reset (or `onReplaced: "reindex"`) can.
 */
export class ChainReplacedError extends BaseError<'CHAIN_REPLACED'> {
  override name = 'ChainReplacedError';
  readonly chainId: number;
  constructor(chainId: number, name: string, detail: string) {
    super(
      `chain ${chainId} (${name}): ${detail}. The store holds another history than the node; ` +
        `indexing of this chain is stopped. Remedy: stop the server and run ` +
        `\`sluice-chain reset ${chainId}\` to delete its indexed data (or set "on_replaced": "reindex" ` +
        `for this chain in CHAINS_FILE to re-index automatically), then start again.`,
      { code: 'CHAIN_REPLACED', details: detail },
    );
    this.chainId = chainId;
  }
}

/** Hash of block 0 as the node reports it, or null when the node has no such header (pruned). */
export async function nodeGenesisHash(rpc: RpcClient): Promise<string | null> {
  try {
    const b = await rpc.request<{ hash: string } | null>('eth_getBlockByNumber', ['0x0', false]);
    return typeof b?.hash === 'string' ? b.hash.toLowerCase() : null;
  } catch (error) {
    // A node that refuses block 0 outright (some pruned or L2 nodes) can't be compared; transient
    // failures were already retried by the client and still propagate.
    if (error instanceof RpcResponseError) return null;
    throw error;
  }
}

/**
 * Compares the node's genesis hash with the one stored in the chain's checkpoint, storing it on
 * first sight (a store from before this check adopts the node's). Throws ChainReplacedError when
 * they differ. Expects the checkpoint row to exist.
 *
 * @example
 * await verifyGenesis(db, rpc, { chainId: 1, name: 'ethereum' });
 */
export async function verifyGenesis(
  db: Queryable,
  rpc: RpcClient,
  chain: { chainId: number; name: string },
): Promise<void> {
  const node = await nodeGenesisHash(rpc);
  if (node === null) return; // nothing to compare with; the parent-hash checks still apply
  const stored = await rememberGenesis(db, chain.chainId, node);
  if (stored && stored !== node) {
    throw new ChainReplacedError(
      chain.chainId,
      chain.name,
      `the node's genesis block ${node} differs from the indexed chain's ${stored}`,
    );
  }
}

/**
 * Checks that the node serves the configured chain id (a misconfigured RPC URL), before anything
 * is read or written for the chain.
 *
 * @example
 * await verifyChainId(rpc, 1); // throws CHAIN_ID_MISMATCH when the node serves another chain
 */
export async function verifyChainId(rpc: RpcClient, chainId: number): Promise<void> {
  const chainIdHex = await rpc.request<string>('eth_chainId', []);
  if (Number(BigInt(chainIdHex)) !== chainId) {
    throw new BaseError(`RPC serves chain ${Number(BigInt(chainIdHex))}, expected ${chainId}`, {
      code: 'CHAIN_ID_MISMATCH',
    });
  }
}
