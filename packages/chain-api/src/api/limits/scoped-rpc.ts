import type { CallOptions, RpcCall, RpcClient } from '../../rpc/create-rpc-client.js';
import { type RequestScope, raceScope } from './request-scope.js';

/**
 * A node client whose calls, for the request of `scope`, wait for one of its API key's node
 * slots (so one key cannot fill a client every key shares: the past-state reads, DeFi reads)
 * and are aborted at the request's deadline: the HTTP request, its retries and backoff.
 * Without a scope: `client` itself.
 *
 * @example
 * const rpc = scopedRpc(nodes.client(chain, 'history'), requestScope(request));
 */
export function scopedRpc(client: RpcClient, scope: RequestScope | undefined): RpcClient {
  if (!scope) return client;
  const limited = <T>(call: (opts: CallOptions) => Promise<T>, opts?: CallOptions) =>
    raceScope(
      scope.nodeSlots.run(scope.key(), () => call({ ...opts, signal: scope.signal }), scope.signal),
      scope.signal,
    );
  return {
    label: client.label,
    request<T>(method: string, params: unknown[], opts?: CallOptions): Promise<T> {
      return limited((o) => client.request<T>(method, params, o), opts);
    },
    batch<T>(calls: readonly RpcCall[], opts?: CallOptions): Promise<T[]> {
      return limited((o) => client.batch<T>(calls, o), opts);
    },
    health: () => client.health(),
    // The underlying client belongs to the node client registry, which closes it.
    close: async () => {},
  };
}

/**
 * Each client of `clients` as a `scopedRpc` of `scope`, wrapped when first asked for: most
 * requests call no node, and a server may serve dozens of chains.
 */
export function scopedRpcs(
  clients: ReadonlyMap<number, RpcClient>,
  scope: RequestScope | undefined,
): ReadonlyMap<number, RpcClient> {
  return scope ? new ScopedClients(clients, scope) : clients;
}

class ScopedClients implements ReadonlyMap<number, RpcClient> {
  readonly #clients: ReadonlyMap<number, RpcClient>;
  readonly #scope: RequestScope;
  #wrapped: Map<number, RpcClient> | undefined;

  constructor(clients: ReadonlyMap<number, RpcClient>, scope: RequestScope) {
    this.#clients = clients;
    this.#scope = scope;
  }

  get size(): number {
    return this.#clients.size;
  }

  has(chainId: number): boolean {
    return this.#clients.has(chainId);
  }

  get(chainId: number): RpcClient | undefined {
    const client = this.#clients.get(chainId);
    if (!client) return undefined;
    this.#wrapped ??= new Map();
    let scoped = this.#wrapped.get(chainId);
    if (!scoped) {
      scoped = scopedRpc(client, this.#scope);
      this.#wrapped.set(chainId, scoped);
    }
    return scoped;
  }

  forEach(
    fn: (client: RpcClient, chainId: number, map: ReadonlyMap<number, RpcClient>) => void,
  ): void {
    for (const [chainId, client] of this.entries()) fn(client, chainId, this);
  }

  *entries(): MapIterator<[number, RpcClient]> {
    for (const chainId of this.#clients.keys()) yield [chainId, this.get(chainId)!];
  }

  keys(): MapIterator<number> {
    return this.#clients.keys();
  }

  *values(): MapIterator<RpcClient> {
    for (const [, client] of this.entries()) yield client;
  }

  [Symbol.iterator](): MapIterator<[number, RpcClient]> {
    return this.entries();
  }
}

/**
 * Takes one of the request's past-state reads (REQUEST_MAX_NODE_READS); false when its budget is
 * spent (the caller reports those balances as unavailable). Always true outside a request.
 */
export function takeNodeRead(scope: RequestScope | undefined): boolean {
  if (!scope) return true;
  if (scope.nodeReads >= scope.limits.maxNodeReads) return false;
  scope.nodeReads++;
  return true;
}
