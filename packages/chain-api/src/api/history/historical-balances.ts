import type { ChainConfig } from '../../chains/chain-config.js';
import type { ApiContext } from '../context.js';
import { limitsOf, type RequestScope } from '../limits/request-scope.js';
import type { BalanceKey, BalanceRow } from '../queries/balances-query.js';
import {
  type HistoricalBalancesQuery,
  type HistoricalCandidate,
  selectHistoricalCandidates,
} from '../queries/historical-balances-query.js';
import type { PastBlock } from './past-block.js';
import type { PastStateReader } from './state-reader.js';

/** A page of balances at a past block, and what the node could not tell. */
export interface HistoricalPage {
  /** Up to `limit + 1` rows (one more tells there is a next page), amounts exact at the block. */
  rows: BalanceRow[];
  /** Tokens (or `native`) whose balance at that block needed the node and it could not answer. */
  unavailable: string[];
  /**
   * Set when the scan stopped at REQUEST_MAX_ROWS_SCANNED before the page was full: the key of
   * the last candidate examined, where the next page resumes.
   */
  scanStoppedAt?: BalanceKey | undefined;
}

export interface HistoricalPageInput {
  ctx: ApiContext;
  reader: PastStateReader | undefined;
  chain: ChainConfig;
  at: PastBlock;
  wallet: string;
  query: Omit<HistoricalBalancesQuery, 'wallet' | 'chainId' | 'block' | 'blockTime' | 'limit'>;
  excludeUnpriced: boolean;
  limit: number;
}

/** Candidates resolved (node reads, prices) at a time once the first chunk left the page short. */
const RESOLVE_CHUNK = 500;

/**
 * Balances of a wallet at a past block of one chain, `limit + 1` at most, keyset-paged like the
 * current listing. The wallet's movements after the block are aggregated once for the first
 * `limit + 1` candidates; when filters (zero at the block, `exclude_unpriced`) leave the page
 * short, once more for the rest of the scan budget (REQUEST_MAX_ROWS_SCANNED), which is then
 * resolved chunk by chunk until the page is full: amounts the store cannot derive are read from
 * the node at that block, zero balances dropped, prices taken at the block's time (`price_usd`
 * null when there was none then), `exclude_unpriced` applied. With `exclude_unpriced`, tokens that
 * never had a price by the block are left out in SQL. A scan that stops at its budget returns the
 * short page and where it stopped.
 *
 * @example
 * const { rows, unavailable } = await historicalBalancesPage({ ctx, reader, chain, at, wallet, query: {}, excludeUnpriced: false, limit: 100 });
 */
export async function historicalBalancesPage(input: HistoricalPageInput): Promise<HistoricalPage> {
  const { ctx, chain, at, wallet, limit } = input;
  const budget = Math.max(limitsOf(ctx.scope).maxRowsScanned, limit + 1);
  const rows: BalanceRow[] = [];
  const unavailable: string[] = [];
  const select = (after: BalanceKey | undefined, count: number) =>
    selectHistoricalCandidates(ctx.db, {
      ...input.query,
      wallet,
      chainId: chain.chainId,
      block: at.number,
      blockTime: at.time,
      pricedOnly: input.excludeUnpriced,
      after,
      limit: count,
    });
  const take = async (chunk: readonly HistoricalCandidate[]) => {
    const resolved = await resolveAmounts(input, chunk, unavailable);
    const prices = await pricesAtBlock(ctx, resolved, at.time);
    resolved.forEach((row, i) => {
      const price = prices[i] ?? null;
      if (input.excludeUnpriced && price === null) return;
      rows.push({ ...row, price_usd: price });
    });
  };
  const keyOf = (c: HistoricalCandidate): BalanceKey => [c.chain_id, c.kind, c.address];

  const first = await select(input.query.after, limit + 1);
  await take(first);
  const last = first.at(-1);
  if (rows.length > limit || first.length <= limit || !last) {
    return { rows: rows.slice(0, limit + 1), unavailable };
  }
  // The page came out short: one more aggregation for the rest of the budget, resolved in chunks.
  const rest = await select(keyOf(last), budget - first.length);
  for (let i = 0; i < rest.length && rows.length <= limit; i += RESOLVE_CHUNK) {
    await take(rest.slice(i, i + RESOLVE_CHUNK));
  }
  const scanned = first.length + rest.length;
  const lastScanned = rest.at(-1) ?? last;
  if (rows.length <= limit && scanned >= budget) {
    return { rows, unavailable, scanStoppedAt: keyOf(lastScanned) };
  }
  return { rows: rows.slice(0, limit + 1), unavailable };
}

/** Node reads for the `node` rows of a chunk; rows at zero and rows the node cannot tell dropped. */
async function resolveAmounts(
  input: HistoricalPageInput,
  chunk: readonly HistoricalCandidate[],
  unavailable: string[],
): Promise<BalanceRow[]> {
  const native = chunk.some((r) => r.source === 'node' && r.kind === 0);
  const tokens = chunk.filter((r) => r.source === 'node' && r.kind === 1).map((r) => r.address);
  const read =
    native || tokens.length > 0
      ? await (input.reader?.read(input.chain, input.at.number, input.wallet, { native, tokens }) ??
          Promise.resolve({ native: null, tokens: tokens.map(() => null) }))
      : { native: null, tokens: [] };
  const byToken = new Map(tokens.map((t, i) => [t, read.tokens[i] ?? null]));
  const out: BalanceRow[] = [];
  for (const row of chunk) {
    const { source, ...rest } = row;
    let amount: bigint | null = BigInt(row.amount);
    if (source === 'node')
      amount = row.kind === 0 ? read.native : (byToken.get(row.address) ?? null);
    if (amount === null) {
      unavailable.push(row.address);
      continue;
    }
    if (amount <= 0n) continue;
    out.push({ ...rest, amount: amount.toString() });
  }
  return out;
}

async function pricesAtBlock(
  ctx: ApiContext,
  rows: readonly BalanceRow[],
  time: Date,
): Promise<(number | null)[]> {
  if (!ctx.pricing || rows.length === 0) return rows.map(() => null);
  return ctx.pricing.pricesAt(rows.map((r) => ({ chainId: r.chain_id, token: r.address, time })));
}

/** The warning of a page cut short by the scan budget (its `next_offset` resumes the scan). */
export function scanLimitWarning(chain: ChainConfig, scope: RequestScope | undefined) {
  return {
    code: 'SCAN_LIMIT_REACHED',
    message: `This page examined ${limitsOf(scope).maxRowsScanned} balances (the per-request limit) before it was full; follow next_offset to continue.`,
    chain_ids: [chain.chainId],
  };
}

/**
 * The warning of an answer that left balances out because the node could not serve state at
 * that block (not an archive node, unreachable, or `balanceOf` reverting there).
 */
export function unavailableWarning(chain: ChainConfig, at: PastBlock, unavailable: string[]) {
  const shown = unavailable.slice(0, 20).join(', ');
  const more = unavailable.length > 20 ? ` and ${unavailable.length - 20} more` : '';
  return {
    code: 'HISTORICAL_STATE_UNAVAILABLE',
    message: `Balances left out: ${shown}${more}. At block ${at.number} of ${chain.name} they do not follow from indexed events (native balances between refreshes, rebasing or reflection tokens, silent credits) and the node could not serve state at that block (an archive node is needed for old blocks).`,
    chain_ids: [chain.chainId],
  };
}
