import type { RpcClient } from '../rpc/index.js';
import { splitRanges, type TxRef } from './log-ranges.js';

const hex = (n: bigint) => `0x${n.toString(16)}`;

interface Waiter {
  padded: string;
  from: bigint;
  to: bigint;
  resolve: (refs: TxRef[]) => void;
  reject: (error: unknown) => void;
}

interface Lane {
  busy: boolean;
  queue: Waiter[];
}

/** Wallets per `eth_getLogs` filter at most (providers cap topic OR-lists). */
const MAX_WALLETS = 64;

/** Shared searches per RPC client (one per chain: the backfills' rate-limited client). */
const searches = new WeakMap<RpcClient, Map<string, Lane>>();

/**
 * Transactions with a log whose `topic0` is one of `topic0s` and whose topic at `position`
 * (1..3) is `wallet` (padded to 32 bytes), in `[from, to]`. Backfills running at once share
 * the node's work: while one search of the same topics runs, later ones queue, and the queue
 * goes out as one filter with every queued wallet in the OR-list at `position` (the node scans
 * the range once, not once per wallet); the answer is split by wallet. Ranges adapt as in
 * `splitRanges`.
 *
 * @example
 * const refs = await sharedLogRefs(rpc, [TOPIC.transfer], 2, padded, 0n, head);
 */
export function sharedLogRefs(
  rpc: RpcClient,
  topic0s: readonly string[],
  position: 1 | 2 | 3,
  padded: string,
  from: bigint,
  to: bigint,
  signal?: AbortSignal,
): Promise<TxRef[]> {
  let lanes = searches.get(rpc);
  if (!lanes) {
    lanes = new Map();
    searches.set(rpc, lanes);
  }
  const key = `${position}|${topic0s.join(',')}`;
  let lane = lanes.get(key);
  if (!lane) {
    lane = { busy: false, queue: [] };
    lanes.set(key, lane);
  }
  const l = lane;
  const done = new Promise<TxRef[]>((resolve, reject) => {
    l.queue.push({ padded: padded.toLowerCase(), from, to, resolve, reject });
  });
  if (!l.busy) void drain(rpc, topic0s, position, l);
  if (!signal) return done;
  // An aborted backfill stops waiting; the shared search finishes for the others.
  return new Promise<TxRef[]>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    done.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function drain(
  rpc: RpcClient,
  topic0s: readonly string[],
  position: 1 | 2 | 3,
  lane: Lane,
): Promise<void> {
  lane.busy = true;
  try {
    while (lane.queue.length > 0) {
      const group = lane.queue.splice(0, MAX_WALLETS);
      try {
        const byWallet = await search(rpc, topic0s, position, group);
        for (const w of group) {
          const refs = (byWallet.get(w.padded) ?? []).filter(
            (r) => r.block >= w.from && r.block <= w.to,
          );
          w.resolve(refs);
        }
      } catch (error) {
        for (const w of group) w.reject(error);
      }
    }
  } finally {
    lane.busy = false;
  }
}

/** One filter for every wallet of `group` over the union of their ranges, split by wallet. */
async function search(
  rpc: RpcClient,
  topic0s: readonly string[],
  position: 1 | 2 | 3,
  group: readonly Waiter[],
): Promise<Map<string, TxRef[]>> {
  const wallets = [...new Set(group.map((w) => w.padded))];
  const from = group.reduce((m, w) => (w.from < m ? w.from : m), group[0]?.from ?? 0n);
  const to = group.reduce((m, w) => (w.to > m ? w.to : m), group[0]?.to ?? 0n);
  const topics: (readonly string[] | null)[] = [topic0s, null, null, null].slice(0, position + 1);
  topics[position] = wallets;
  const found = await splitRanges(from, to, 1_000_000n, async (a, b) => {
    const logs = await rpc.request<
      { blockNumber: string; transactionHash: string; topics: string[] }[]
    >('eth_getLogs', [{ fromBlock: hex(a), toBlock: hex(b), topics }], {
      validate: Array.isArray,
    });
    return logs.map((l) => ({
      wallet: (l.topics[position] ?? '').toLowerCase(),
      ref: { block: BigInt(l.blockNumber), hash: l.transactionHash.toLowerCase() },
    }));
  });
  const out = new Map<string, TxRef[]>();
  for (const f of found) {
    const list = out.get(f.wallet);
    if (list) list.push(f.ref);
    else out.set(f.wallet, [f.ref]);
  }
  return out;
}
