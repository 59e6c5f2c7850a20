import type { CallOptions, RpcCall, RpcClient } from '../../rpc/create-rpc-client.js';
import { currentScope, type RequestScope, raceScope } from './request-scope.js';

/**
 * A node client whose calls, inside a request, wait for one of the request's API key's node
 * slots (so one key cannot fill a client every key shares: the past-state reads, DeFi reads)
 * and are aborted at the request's deadline: the HTTP request, its retries and backoff.
 * Outside a request the calls go straight through.
 *
 * @example
 * const rpc = scopedRpc(nodes.client(chain, 'history'));
 */
export function scopedRpc(client: RpcClient): RpcClient {
  const limited = <T>(
    scope: RequestScope,
    call: (opts: CallOptions) => Promise<T>,
    opts?: CallOptions,
  ) =>
    raceScope(
      scope.nodeSlots.run(scope.key(), () => call({ ...opts, signal: scope.signal }), scope.signal),
      scope.signal,
    );
  return {
    label: client.label,
    request<T>(method: string, params: unknown[], opts?: CallOptions): Promise<T> {
      const scope = currentScope();
      if (!scope) return client.request<T>(method, params, opts);
      return limited(scope, (o) => client.request<T>(method, params, o), opts);
    },
    batch<T>(calls: readonly RpcCall[], opts?: CallOptions): Promise<T[]> {
      const scope = currentScope();
      if (!scope) return client.batch<T>(calls, opts);
      return limited(scope, (o) => client.batch<T>(calls, o), opts);
    },
    health: () => client.health(),
    // The underlying client belongs to the node client registry, which closes it.
    close: async () => {},
  };
}

/** Each client of `clients` as a `scopedRpc`. */
export function scopedRpcs(
  clients: ReadonlyMap<number, RpcClient>,
): ReadonlyMap<number, RpcClient> {
  return new Map([...clients].map(([chainId, client]) => [chainId, scopedRpc(client)]));
}

/**
 * Takes one of the current request's past-state reads (REQUEST_MAX_NODE_READS); false when its
 * budget is spent (the caller reports those balances as unavailable). Always true outside a request.
 */
export function takeNodeRead(): boolean {
  const scope = currentScope();
  if (!scope) return true;
  if (scope.nodeReads >= scope.limits.maxNodeReads) return false;
  scope.nodeReads++;
  return true;
}
