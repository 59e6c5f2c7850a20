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

/** Each client of `clients` as a `scopedRpc` of `scope` (the request context makes it on first use). */
export function scopedRpcs(
  clients: ReadonlyMap<number, RpcClient>,
  scope: RequestScope | undefined,
): ReadonlyMap<number, RpcClient> {
  if (!scope) return clients;
  return new Map([...clients].map(([chainId, client]) => [chainId, scopedRpc(client, scope)]));
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
