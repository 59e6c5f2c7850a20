import { type RpcClient, sleep } from '../rpc/index.js';

/**
 * The same client, spending at most `perSecond` JSON-RPC calls per second (a batch of n calls
 * spends n): backfills share the node with the head follower and must not starve it.
 *
 * @example
 * const rpc = rateLimitedRpc(indexerRpc, 200);
 */
export function rateLimitedRpc(rpc: RpcClient, perSecond: number, signal?: AbortSignal): RpcClient {
  let tokens = perSecond;
  let last = Date.now();
  let queue: Promise<void> = Promise.resolve();
  const take = (n: number): Promise<void> => {
    const turn = queue.then(async () => {
      let need = Math.min(n, perSecond);
      for (;;) {
        const now = Date.now();
        tokens = Math.min(perSecond, tokens + ((now - last) / 1000) * perSecond);
        last = now;
        if (tokens >= need) {
          tokens -= need;
          // A batch larger than a second's budget waits for the rest too.
          if (n > perSecond) await sleep(((n - perSecond) / perSecond) * 1000, signal);
          return;
        }
        await sleep(Math.ceil(((need - tokens) / perSecond) * 1000), signal);
        need = Math.min(n, perSecond);
      }
    });
    queue = turn.catch(() => {});
    return turn;
  };
  return {
    label: rpc.label,
    async request(method, params, opts) {
      await take(1);
      return rpc.request(method, params, opts);
    },
    async batch(calls, opts) {
      await take(calls.length);
      return rpc.batch(calls, opts);
    },
    health: () => rpc.health(),
    // The indexer owns the underlying client.
    close: async () => {},
  };
}
