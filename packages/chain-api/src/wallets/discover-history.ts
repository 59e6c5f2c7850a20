import { TOPIC } from '../decode/index.js';
import { isMethodNotFound, type RpcClient } from '../rpc/index.js';
import { splitRanges, type TxRef } from './log-ranges.js';
import { sharedLogRefs } from './shared-log-search.js';

/** How a wallet's transactions (including internal native transfers) are found. */
export type DiscoveryMethod = 'ots' | 'trace' | 'logs';

/** Why a logs-only history may be incomplete (shown in /health and the answers' warnings). */
export const LOGS_ONLY_WARNING =
  'the node serves neither ots_searchTransactions nor trace_filter: transactions of this wallet that emit no token event naming it (plain native transfers, calls, internal transfers) are missing';

const hex = (n: bigint) => `0x${n.toString(16)}`;
const ZERO = '0x0000000000000000000000000000000000000000';

/**
 * Which per-address method the node answers: Otterscan's `ots_searchTransactionsBefore`, else
 * `trace_filter`, else none (`logs`). Only "method not found" rules a method out; other errors
 * propagate (the caller retries later).
 *
 * @example
 * const method = await probeDiscovery(rpc, head); // 'ots' on anvil, Erigon, Reth
 */
export async function probeDiscovery(rpc: RpcClient, head: bigint): Promise<DiscoveryMethod> {
  try {
    // Block numbers go as JSON numbers: anvil and Erigon parse a u64, not a hex string.
    await rpc.request('ots_searchTransactionsBefore', [ZERO, Number(head + 1n), 1]);
    return 'ots';
  } catch (error) {
    if (!isMethodNotFound(error)) throw error;
  }
  try {
    await rpc.request('trace_filter', [
      { fromBlock: hex(head), toBlock: hex(head), fromAddress: [ZERO] },
    ]);
    return 'trace';
  } catch (error) {
    if (!isMethodNotFound(error)) throw error;
  }
  return 'logs';
}

/**
 * Every transaction in `[from, to]` that involves `wallet`: as sender or recipient at any call
 * depth (`ots` or `trace`), plus every transaction with a decoded token event (ERC20/721/1155
 * transfers and approvals, WETH-style deposits and withdrawals) naming it in any indexed
 * position. Sorted by block; one entry per transaction.
 *
 * @example
 * const refs = await discoverHistory(rpc, 'ots', wallet, 0n, handover);
 */
export async function discoverHistory(
  rpc: RpcClient,
  method: DiscoveryMethod,
  wallet: string,
  from: bigint,
  to: bigint,
  signal?: AbortSignal,
): Promise<TxRef[]> {
  if (to < from) return [];
  const padded = `0x${wallet.slice(2).padStart(64, '0')}`;
  const walletTopics = [
    TOPIC.transfer,
    TOPIC.approval,
    TOPIC.approvalForAll,
    TOPIC.deposit,
    TOPIC.withdrawal,
  ];
  const multi = [TOPIC.transferSingle, TOPIC.transferBatch];
  // Each filter is shared with the other backfills running now (one scan for all their wallets).
  const parts = await Promise.all([
    sharedLogRefs(rpc, walletTopics, 1, padded, from, to, signal),
    // The wallet as topic 2: one filter for both families (the node scans the range once).
    sharedLogRefs(
      rpc,
      [TOPIC.transfer, TOPIC.approval, TOPIC.approvalForAll, ...multi],
      2,
      padded,
      from,
      to,
      signal,
    ),
    sharedLogRefs(rpc, multi, 3, padded, from, to, signal),
    method === 'ots'
      ? otsRefs(rpc, wallet, from, to, signal)
      : method === 'trace'
        ? traceRefs(rpc, wallet, from, to, signal)
        : Promise.resolve([]),
  ]);
  const byHash = new Map<string, TxRef>();
  for (const r of parts.flat()) if (r.block >= from && r.block <= to) byHash.set(r.hash, r);
  return [...byHash.values()].sort((a, b) => (a.block < b.block ? -1 : a.block > b.block ? 1 : 0));
}

interface OtsPage {
  txs: { hash: string; blockNumber: string }[];
  lastPage: boolean;
}

/** Otterscan search, newest first from `to`, page by page (whole blocks per page). */
async function otsRefs(
  rpc: RpcClient,
  wallet: string,
  from: bigint,
  to: bigint,
  signal?: AbortSignal,
): Promise<TxRef[]> {
  const out: TxRef[] = [];
  let before = to + 1n;
  for (;;) {
    signal?.throwIfAborted();
    const page = await rpc.request<OtsPage>(
      'ots_searchTransactionsBefore',
      [wallet, Number(before), 500],
      { validate: (r) => typeof r === 'object' && r !== null && Array.isArray((r as OtsPage).txs) },
    );
    let lowest = before;
    for (const t of page.txs) {
      const block = BigInt(t.blockNumber);
      if (block < lowest) lowest = block;
      out.push({ block, hash: t.hash.toLowerCase() });
    }
    if (page.lastPage || page.txs.length === 0 || lowest <= from || lowest >= before) break;
    before = lowest;
  }
  return out;
}

/** trace_filter by sender and by recipient (adaptive ranges). */
async function traceRefs(
  rpc: RpcClient,
  wallet: string,
  from: bigint,
  to: bigint,
  signal?: AbortSignal,
): Promise<TxRef[]> {
  const side = (key: 'fromAddress' | 'toAddress') =>
    splitRanges(
      from,
      to,
      100_000n,
      async (a, b) => {
        const traces = await rpc.request<
          { blockNumber: number; transactionHash?: string | null }[]
        >('trace_filter', [{ fromBlock: hex(a), toBlock: hex(b), [key]: [wallet] }], {
          validate: Array.isArray,
        });
        // Block rewards have no transaction.
        return traces
          .filter((t) => typeof t.transactionHash === 'string')
          .map((t) => ({
            block: BigInt(t.blockNumber),
            hash: (t.transactionHash as string).toLowerCase(),
          }));
      },
      signal,
    );
  const [sent, received] = await Promise.all([side('fromAddress'), side('toAddress')]);
  return [...sent, ...received];
}
