import { decodeLog, TOPIC } from '../decode/index.js';
import type { PoolState } from '../derive/index.js';
import type { RpcClient } from '../rpc/index.js';
import { splitRanges } from './log-ranges.js';

/** A pool a configured factory created (what the follower's PairCreated/PoolCreated gives). */
export type FoundPool = Pick<
  PoolState,
  'address' | 'dex' | 'factory' | 'token0' | 'token1' | 'fee' | 'tickSpacing' | 'createdBlock'
>;

/** The chain's factories, lower-case (the indexer's `ctx.v2Factories` / `ctx.v3Factories`). */
export interface Factories {
  v2: ReadonlySet<string>;
  v3: ReadonlySet<string>;
}

interface LogEntry {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  logIndex: string;
  transactionIndex: string;
}

const hex = (n: bigint) => `0x${n.toString(16)}`;

/**
 * Every pool the factories created in `[from, to]`: `eth_getLogs` on the factories' addresses
 * with the PairCreated/PoolCreated topics (ranges halved on "too many results"), decoded by the
 * indexer's own decoder with the same factory checks as `deriveBatch`. Block order.
 *
 * @example
 * const pools = await scanFactoryPools(rpc, { v2: new Set([f2]), v3: new Set() }, 0n, 1000n);
 */
export async function scanFactoryPools(
  rpc: RpcClient,
  factories: Factories,
  from: bigint,
  to: bigint,
  signal?: AbortSignal,
): Promise<FoundPool[]> {
  const address = [...factories.v2, ...factories.v3];
  if (address.length === 0 || from > to) return [];
  const logs = await splitRanges(
    from,
    to,
    to - from + 1n,
    (a, b) =>
      rpc.request<LogEntry[]>(
        'eth_getLogs',
        [
          {
            fromBlock: hex(a),
            toBlock: hex(b),
            address,
            topics: [[TOPIC.pairCreated, TOPIC.poolCreated]],
          },
        ],
        { validate: Array.isArray },
      ),
    signal,
  );
  const out: FoundPool[] = [];
  for (const l of logs) {
    const ev = decodeLog({
      address: l.address.toLowerCase() as `0x${string}`,
      topics: l.topics,
      data: l.data,
      logIndex: Number(l.logIndex),
      txIndex: Number(l.transactionIndex),
    });
    const block = BigInt(l.blockNumber);
    if (ev?.kind === 'v2_pair_created' && factories.v2.has(ev.address)) {
      out.push({
        address: ev.pair,
        dex: 'uniswap_v2',
        factory: ev.address,
        token0: ev.token0,
        token1: ev.token1,
        fee: null,
        tickSpacing: null,
        createdBlock: block,
      });
    } else if (ev?.kind === 'v3_pool_created' && factories.v3.has(ev.address)) {
      out.push({
        address: ev.pool,
        dex: 'uniswap_v3',
        factory: ev.address,
        token0: ev.token0,
        token1: ev.token1,
        fee: ev.fee,
        tickSpacing: ev.tickSpacing,
        createdBlock: block,
      });
    }
  }
  return out;
}
