import type { ChainConfig } from '../../chains/chain-config.js';
import { readBalances } from '../../reconcile/read-balances.js';
import type { NodeClientRegistry, RpcClient } from '../../rpc/index.js';
import type { RequestScope } from '../limits/request-scope.js';
import { scopedRpc, takeNodeRead } from '../limits/scoped-rpc.js';

/** Balances the node reports at one past block; null = the node could not say (not archive, down). */
export interface NodeBalances {
  native: bigint | null;
  tokens: (bigint | null)[];
}

/**
 * Reads balances at a past block from a chain's node: what the store cannot derive from events
 * (native balances between two refreshes, tokens that rebase, reflect, wrap without Transfer or
 * credit silently). Needs a node that keeps state at that block (an archive node for old blocks).
 */
export interface PastStateReader {
  read(
    chain: ChainConfig,
    block: bigint,
    wallet: string,
    opts: {
      native: boolean;
      tokens: readonly string[];
      /** The request the read is for: its node-read budget, node slots and deadline. */
      scope?: RequestScope | undefined;
    },
  ): Promise<NodeBalances>;
  close(): Promise<void>;
}

/**
 * A reader over each chain's node: the registry's `history` clients (opened on first use, few
 * retries: an API request waits on it). A chain without `rpcUrl` answers null for everything.
 * For a request (`scope`) each read takes one of its REQUEST_MAX_NODE_READS (past the budget:
 * null for everything), its calls share its API key's node slots and stop at its deadline.
 *
 * @example
 * const reader = createPastStateReader(nodes);
 * const { native, tokens } = await reader.read(chain, 120n, wallet, { native: true, tokens: [usdc] });
 */
export function createPastStateReader(nodes: NodeClientRegistry): PastStateReader {
  return {
    async read(chain, block, wallet, want) {
      const shared = nodes.client(chain, 'history');
      const none: NodeBalances = { native: null, tokens: want.tokens.map(() => null) };
      if (!shared || !takeNodeRead(want.scope)) return none;
      const rpc = scopedRpc(shared, want.scope);
      const tag = `0x${block.toString(16)}`;
      const [native, tokens] = await Promise.all([
        want.native
          ? rpc
              .request<string>('eth_getBalance', [wallet, tag], {
                validate: (r) => typeof r === 'string' && /^0x[0-9a-f]+$/i.test(r),
              })
              .then((hex) => BigInt(hex))
              .catch(unlessCancelled(want.scope, null))
          : Promise.resolve(null),
        readBalances(
          rpc,
          chain.multicall3 ?? null,
          want.tokens.map((token) => ({ token, wallet })),
          block,
        ).catch(unlessCancelled(want.scope, none.tokens)),
      ]);
      return {
        native,
        tokens: await zeroWithoutCode(rpc, want.tokens, tokens, tag, want.scope),
      };
    },
    async close() {
      // The clients belong to the registry, which closes them.
    },
  };
}

/**
 * A failed read is "the node could not say" (`value`), unless the request it ran for was
 * cancelled: then the cancellation goes on up (the answer must not pass for an incomplete one).
 */
function unlessCancelled<T>(scope: RequestScope | undefined, value: T): () => T {
  return () => {
    scope?.signal.throwIfAborted();
    return value;
  };
}

/** A token with no code at that block (deployed later) held nothing then: 0, not unknown. */
async function zeroWithoutCode(
  rpc: RpcClient,
  tokens: readonly string[],
  values: (bigint | null)[],
  tag: string,
  scope: RequestScope | undefined,
): Promise<(bigint | null)[]> {
  const unknown = values.flatMap((v, i) => (v === null ? [i] : []));
  if (unknown.length === 0) return values;
  const codes = await rpc
    .batch<string>(
      unknown.map((i) => ({ method: 'eth_getCode', params: [tokens[i], tag] })),
      { validate: (r) => typeof r === 'string' },
    )
    .catch(
      unlessCancelled(
        scope,
        unknown.map(() => null),
      ),
    );
  const out = [...values];
  unknown.forEach((i, k) => {
    if (codes[k] === '0x') out[i] = 0n;
  });
  return out;
}
