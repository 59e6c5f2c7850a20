import type { ChainConfig } from '../chains/chain-config.js';
import type { NodeClientRegistry, RpcClient } from '../rpc/index.js';

/**
 * The API's node clients by chain id, for the reads the store cannot answer (DeFi positions at
 * the indexed head): the registry's `api` clients (short timeouts, two attempts), so a node
 * outage becomes a 503 within seconds instead of a hung request.
 *
 * @example
 * const clients = apiNodeClients(nodes, chains);
 * clients.get(1); // RpcClient of chain 1, if it has an rpcUrl
 */
export function apiNodeClients(
  nodes: NodeClientRegistry,
  chains: readonly ChainConfig[],
): ReadonlyMap<number, RpcClient> {
  const clients = new Map<number, RpcClient>();
  for (const chain of chains) {
    const client = nodes.client(chain, 'api');
    if (client) clients.set(chain.chainId, client);
  }
  return clients;
}
