import type { ChainConfig } from '../chains/chain-config.js';
import { createRpcClient, type RpcClient } from '../rpc/index.js';

/** The API's own JSON-RPC clients, one per chain with an RPC URL. */
export interface NodeClients {
  clients: ReadonlyMap<number, RpcClient>;
  close(): Promise<void>;
}

/**
 * Clients for the reads the store cannot answer (DeFi positions at the indexed head), apart from
 * the indexer's: short timeouts and two attempts, so a node outage becomes a 503 within seconds
 * instead of a hung request. Creating one opens nothing; connections come with the first call.
 *
 * @example
 * const nodes = createNodeClients(chains);
 * nodes.clients.get(1); // RpcClient of chain 1, if it has an rpcUrl
 */
export function createNodeClients(chains: readonly ChainConfig[]): NodeClients {
  const clients = new Map<number, RpcClient>();
  for (const chain of chains) {
    if (!chain.rpcUrl) continue;
    clients.set(
      chain.chainId,
      createRpcClient({ url: chain.rpcUrl, timeoutMs: 5_000, maxAttempts: 2, maxConcurrency: 4 }),
    );
  }
  return {
    clients,
    async close() {
      await Promise.all([...clients.values()].map((client) => client.close()));
    },
  };
}
