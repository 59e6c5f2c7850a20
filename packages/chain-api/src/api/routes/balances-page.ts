import type { ChainConfig } from '../../chains/chain-config.js';
import {
  type BalanceShapeOptions,
  balanceTokens,
  loadBalanceHistory,
  shapeBalanceRows,
  withLivePrices,
} from '../balance-shape.js';
import type { ApiContext } from '../context.js';
import type { BalanceKey, BalanceRow } from '../queries/balances-query.js';
import { anyPriceDep, type Dep, historyDep } from '../response-cache/cache-deps.js';
import type { AnswerSource, ResponseTimes } from '../response-cache/send-cached.js';

function isBalanceKey(key: readonly (string | number)[]): key is BalanceKey {
  return (
    key.length === 3 &&
    Number.isInteger(key[0]) &&
    (key[1] === 0 || key[1] === 1) &&
    typeof key[2] === 'string'
  );
}

/**
 * The balance key a `next_offset` cursor carries, checked against its scope (endpoint, wallet,
 * chains, filters); undefined for the first page.
 *
 * @example
 * const after = decodeBalanceCursor(ctx, scope, query.offset);
 */
export function decodeBalanceCursor(
  ctx: ApiContext,
  scope: string,
  offset: string | undefined,
): BalanceKey | undefined {
  if (!offset) return undefined;
  const key = ctx.cursors.decode(scope, offset);
  if (!isBalanceKey(key)) throw ctx.cursors.invalid();
  return key;
}

/** What a balances-shaped page is built from. */
export interface BalancesPageInput {
  ctx: ApiContext;
  address: string;
  chains: readonly ChainConfig[];
  /** Up to `limit + 1` rows in key order: one more than the page tells there is a next page. */
  rows: readonly BalanceRow[];
  limit: number;
  historicalPrices: BalanceShapeOptions['historicalOffsets'];
  metadata: BalanceShapeOptions['metadata'];
  warnings: readonly unknown[];
  scope: string;
  /** Historical prices of the page's rows (`loadBalanceHistory`). */
  history: readonly (number | null)[];
  /** Where a scan cut short by its budget resumes: `next_offset` even on a short page. */
  resumeAfter?: BalanceKey | undefined;
}

/**
 * The body of a balances answer (`/balances` and `/balances/{address}/stablecoins`): shaped and
 * priced rows, warnings, and `next_offset` when more rows follow.
 */
export function balancesPageBody(input: BalancesPageInput): Record<string, unknown> {
  const { ctx, rows, limit } = input;
  const page = rows.slice(0, limit);
  const balances = shapeBalanceRows(
    page,
    new Map(input.chains.map((c) => [c.chainId, c])),
    {
      historicalOffsets: input.historicalPrices,
      metadata: input.metadata,
      lowLiquidityUsd: ctx.lowLiquidityUsd,
    },
    input.history,
    ctx.pricing,
  );
  const body: Record<string, unknown> = { wallet_address: input.address, balances };
  if (input.warnings.length > 0) body.warnings = input.warnings;
  const last = page.at(-1);
  if (rows.length > limit && last) {
    body.next_offset = ctx.cursors.encode(input.scope, [last.chain_id, last.kind, last.address]);
  } else if (input.resumeAfter) {
    body.next_offset = ctx.cursors.encode(input.scope, [...input.resumeAfter]);
  }
  return body;
}

/** Balance rows and the historical prices of the page among them. */
export interface LoadedBalances {
  rows: BalanceRow[];
  history: (number | null)[];
}

export interface BalanceAnswerInput {
  ctx: ApiContext;
  chains: readonly ChainConfig[];
  /** Rows shown (the page); `rows` may hold one more. */
  limit: number;
  historicalPrices: number[] | undefined;
  requestTime: Date;
  /** The query selected the pool columns (metadata=pools). */
  withPools: boolean | undefined;
  /** Which rows exist depends on prices (exclude_spam_tokens, exclude_unpriced). */
  priceFiltered: boolean;
  rows(): Promise<BalanceRow[]>;
  /** Dependencies beyond the wallet's, known once the rows are loaded. */
  moreDeps?(rows: readonly BalanceRow[]): readonly Dep[];
  body(rows: BalanceRow[], history: (number | null)[], times: ResponseTimes): Body;
}

type Body = Record<string, unknown>;

/**
 * A balances-shaped answer for `sendCached`: the rows are kept and priced at response time, so a
 * price tick re-renders it instead of a query. A page whose rows depend on prices is dropped on
 * any price change of its chains instead; one with `historical_prices` when the history it read
 * changes.
 */
export function balanceAnswer(input: BalanceAnswerInput): AnswerSource<LoadedBalances> {
  const page = (rows: BalanceRow[]) => rows.slice(0, input.limit);
  return {
    async load() {
      const rows = await input.rows();
      const history = await loadBalanceHistory(
        page(rows),
        input.historicalPrices,
        input.requestTime,
        input.ctx.pricing,
      );
      return { rows, history };
    },
    priced: ({ rows }) => balanceTokens(rows),
    deps: ({ rows }) => [
      ...(input.priceFiltered ? input.chains.map((c) => anyPriceDep(c.chainId)) : []),
      ...historyDeps(page(rows), input.chains, input.historicalPrices, input.requestTime),
      ...(input.moreDeps?.(rows) ?? []),
    ],
    render: ({ rows, history }, times, prices) =>
      input.body(
        prices ? withLivePrices(rows, prices, input.withPools ?? false) : rows,
        history,
        times,
      ),
  };
}

/** The parameters a balances page is shaped by (`/balances`, `/balances/{address}/stablecoins`). */
export interface BalancesPageQuery {
  limit: number;
  historical_prices?: number[] | undefined;
  metadata?: BalanceShapeOptions['metadata'];
  exclude_spam_tokens: boolean;
  exclude_unpriced: boolean;
}

/**
 * `balanceAnswer` for a balances page: the rows `rows` loads, shaped by `balancesPageBody`.
 */
export function balancesPageAnswer(input: {
  ctx: ApiContext;
  address: string;
  chains: readonly ChainConfig[];
  query: BalancesPageQuery;
  warnings: readonly unknown[];
  scope: string;
  requestTime: Date;
  rows(): Promise<BalanceRow[]>;
}): AnswerSource<LoadedBalances> {
  const { ctx, query } = input;
  return balanceAnswer({
    ctx,
    chains: input.chains,
    limit: query.limit,
    historicalPrices: query.historical_prices,
    requestTime: input.requestTime,
    withPools: query.metadata?.includes('pools'),
    priceFiltered: query.exclude_spam_tokens || query.exclude_unpriced,
    rows: input.rows,
    body: (rows, history, times) => ({
      ...balancesPageBody({
        ctx,
        address: input.address,
        chains: input.chains,
        rows,
        limit: query.limit,
        historicalPrices: query.historical_prices,
        metadata: query.metadata,
        warnings: input.warnings,
        scope: input.scope,
        history,
      }),
      ...times,
    }),
  });
}

/** History a page's `historical_prices` read: each token (and the wrapped native it may be quoted in). */
function historyDeps(
  rows: readonly BalanceRow[],
  chains: readonly ChainConfig[],
  offsets: readonly number[] | undefined,
  requestTime: Date,
): Dep[] {
  if (!offsets || offsets.length === 0) return [];
  const until = requestTime.getTime() / 1000 - Math.min(...offsets) * 3_600;
  const wrapped = new Map(chains.map((c) => [c.chainId, c.wrappedNative?.toLowerCase()]));
  const deps: Dep[] = [];
  for (const chainId of new Set(rows.map((r) => r.chain_id))) {
    deps.push(historyDep(chainId, wrapped.get(chainId) ?? 'native', until));
  }
  for (const row of rows) deps.push(historyDep(row.chain_id, row.address, until));
  return deps;
}
