import type { Logger } from 'pino';
import { createRpcClient, type RpcClient, type RpcClientOptions } from './create-rpc-client.js';
import { createNodeTransport, type NodeTransport } from './node-transport.js';

/**
 * Who asks the node. Each purpose has its own client (its own concurrency and retry budget, so
 * the indexer's backfill cannot starve an API request) over the node's one transport.
 */
export type NodePurpose = 'api' | 'history' | 'nft';

/** Request timeouts and limits per purpose. */
const purposeOptions: Record<NodePurpose, Omit<RpcClientOptions, 'url'>> = {
  // The reads the store cannot answer (DeFi positions at the indexed head): a node outage must be
  // a 503 within seconds, not a hung request.
  api: { timeoutMs: 5_000, maxAttempts: 2, maxConcurrency: 4 },
  // Balances at past blocks (an API request waits on them too).
  history: { timeoutMs: 10_000, maxAttempts: 3, maxInvalidAttempts: 2, maxConcurrency: 4 },
  // tokenURI/name/symbol of NFT contracts (a failure is retried on the worker's own schedule).
  // The answer is whatever the contract returns: 8 reads in flight of up to 512 MiB each would
  // exhaust the worker, so one answer is at most 10 MiB (beyond: RPC_TOO_LARGE, final).
  nft: {
    timeoutMs: 15_000,
    maxAttempts: 3,
    batchSize: 100,
    maxConcurrency: 8,
    maxResponseBytes: 10 * 1024 * 1024,
    capCallGas: false,
  },
};

/** A chain as the registry needs it. */
export interface NodeChain {
  chainId: number;
  rpcUrl?: string | undefined;
}

/** The node clients of one process: one transport per node URL, shared by every client of it. */
export interface NodeClientRegistry {
  /** The chain's client for `purpose` (created on first use); undefined without an RPC URL. */
  client(chain: NodeChain, purpose: NodePurpose): RpcClient | undefined;
  /**
   * A client of its own over the node's shared transport, for a caller with its own log, abort
   * signal and limits (the indexer of a chain).
   */
  open(url: string, options?: Omit<RpcClientOptions, 'url' | 'transport'>): RpcClient;
  /** Closes every client and transport. */
  close(): Promise<void>;
}

/**
 * One registry per process; every part that talks to a node gets its client here.
 *
 * @example
 * const nodes = createNodeClientRegistry({ log });
 * const rpc = nodes.client(chain, 'api'); // RpcClient of the chain's node, if it has an rpcUrl
 * await nodes.close();
 */
export function createNodeClientRegistry(
  opts: {
    log?: Logger;
    /** The transport of a node URL (tests observe the wire here). */
    createTransport?: (url: string) => NodeTransport;
  } = {},
): NodeClientRegistry {
  const newTransport = opts.createTransport ?? createNodeTransport;
  const transports = new Map<string, NodeTransport>();
  const shared = new Map<string, RpcClient>();
  const opened = new Set<RpcClient>();
  const transportOf = (url: string): NodeTransport => {
    let transport = transports.get(url);
    if (!transport) {
      transport = newTransport(url);
      transports.set(url, transport);
    }
    return transport;
  };
  return {
    client(chain, purpose) {
      if (!chain.rpcUrl) return undefined;
      const key = `${purpose} ${chain.rpcUrl}`;
      let client = shared.get(key);
      if (!client) {
        client = createRpcClient({
          ...purposeOptions[purpose],
          ...(opts.log ? { log: opts.log } : {}),
          url: chain.rpcUrl,
          transport: transportOf(chain.rpcUrl),
        });
        shared.set(key, client);
      }
      return client;
    },
    open(url, options = {}) {
      const client = createRpcClient({ ...options, url, transport: transportOf(url) });
      opened.add(client);
      return client;
    },
    async close() {
      await Promise.all([...shared.values(), ...opened].map((client) => client.close()));
      shared.clear();
      opened.clear();
      await Promise.all([...transports.values()].map((transport) => transport.close()));
      transports.clear();
    },
  };
}
