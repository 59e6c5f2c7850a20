import { getHttpRpcClient, getWebSocketRpcClient } from 'viem/utils';
import { RpcMalformedResponseError } from './rpc-errors.js';

/** One JSON-RPC request as sent: id, method and params. */
export interface RpcRequestBody {
  id: number;
  method: string;
  params: unknown[];
}

/**
 * The wire to one node URL: one HTTP client (fetch's keep-alive connection pool for the node's
 * origin) or one WebSocket, shared by every RPC client of that node in the process.
 */
export interface NodeTransport {
  /**
   * Sends `body` as one JSON-RPC batch; answers in any order (matched by id by the caller).
   * `signal` aborts the HTTP request (a WebSocket call is abandoned: its answer is ignored). An
   * HTTP answer larger than `maxResponseBytes` (default 512 MiB) is refused while it streams in.
   */
  send(
    body: readonly RpcRequestBody[],
    timeoutMs: number,
    opts?: { signal?: AbortSignal; maxResponseBytes?: number },
  ): Promise<unknown[]>;
  close(): Promise<void>;
}

/** Largest answer accepted by default (a block with all its receipts can be big). */
const defaultMaxResponseBytes = 512 * 1024 * 1024;

/**
 * The transport of `url` (http(s):// or ws(s)://). Nothing is opened before the first send.
 *
 * @example
 * const transport = createNodeTransport('http://127.0.0.1:8545');
 * await transport.send([{ id: 1, method: 'eth_blockNumber', params: [] }], 5_000);
 */
export function createNodeTransport(url: string): NodeTransport {
  if (/^wss?:/i.test(url)) {
    let ws: Awaited<ReturnType<typeof getWebSocketRpcClient>> | undefined;
    return {
      async send(body, timeoutMs, opts = {}) {
        const { signal } = opts;
        signal?.throwIfAborted();
        ws ??= await getWebSocketRpcClient(url, { reconnect: true, keepAlive: true });
        const client = ws;
        const answers = Promise.all(
          body.map((b) =>
            client.requestAsync({
              body: { method: b.method, params: b.params, id: b.id },
              timeout: timeoutMs,
            }),
          ),
        );
        if (!signal) return answers;
        answers.catch(() => {});
        return Promise.race([
          answers,
          new Promise<never>((_, reject) => {
            signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          }),
        ]);
      },
      async close() {
        ws?.close();
        ws = undefined;
      },
    };
  }
  const http = getHttpRpcClient(url, { maxResponseBodySize: defaultMaxResponseBytes });
  return {
    async send(body, timeoutMs, opts = {}) {
      const { signal } = opts;
      const data: unknown = await http.request({
        body: body.map((b) => ({ jsonrpc: '2.0' as const, ...b })),
        timeout: timeoutMs,
        ...(signal ? { fetchOptions: { signal } } : {}),
        ...(opts.maxResponseBytes === undefined
          ? {}
          : { maxResponseBodySize: opts.maxResponseBytes }),
      });
      if (!Array.isArray(data)) throw new RpcMalformedResponseError('batch', 'not an array');
      return data;
    },
    async close() {},
  };
}
