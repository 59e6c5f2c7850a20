import type { FastifyReply, FastifyRequest } from 'fastify';
import { loadBalanceHistory } from '../balance-shape.js';
import { type ChainSelectorItem, resolveSingleChain } from '../chain-selector.js';
import { type ApiContext, supportedChainsUrl } from '../context.js';
import { invalidParameter } from '../errors.js';
import type { BalanceKey } from '../queries/balances-query.js';
import { assertChainsReady } from '../readiness.js';
import { walletAndChainDeps } from '../response-cache/cache-deps.js';
import { sendCached } from '../response-cache/send-cached.js';
import { balancesPageBody, decodeBalanceCursor } from '../routes/balances-page.js';
import {
  historicalBalancesPage,
  scanLimitWarning,
  unavailableWarning,
} from './historical-balances.js';
import { type PastBlockRequest, resolvePastBlock } from './past-block.js';

/** The balances query parameters a historical answer honours (as parsed by the balances route). */
export interface HistoricalBalancesParams {
  chain_ids: readonly ChainSelectorItem[] | undefined;
  filters: 'erc20' | 'native' | undefined;
  asset_class: 'stablecoin' | undefined;
  metadata: ('logo' | 'url' | 'pools')[] | undefined;
  exclude_spam_tokens: boolean;
  exclude_unpriced: boolean;
  historical_prices: number[] | undefined;
  offset: string | undefined;
  limit: number;
}

/**
 * `GET /v1/evm/balances/{address}?block_number=|as_of=`: the balances answer as it was at the
 * end of a past block of exactly one chain (`chain_ids` required). Same shape, filters, order and
 * keyset paging as the current answer; prices are those at the block's time and
 * `historical_prices` offsets count back from that time. The answer never changes for a block
 * (until a reorg rewrites it), so it is cached like the current one.
 *
 * @example
 * if (past) return sendHistoricalBalances(ctx, request, reply, address, query, past);
 */
export async function sendHistoricalBalances(
  ctx: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
  address: string,
  query: HistoricalBalancesParams,
  past: PastBlockRequest,
): Promise<FastifyReply> {
  const requestTime = new Date();
  const which = 'blockNumber' in past ? 'block_number' : 'as_of';
  if (!query.chain_ids || query.chain_ids.length === 0) {
    throw invalidParameter(
      'chain_ids',
      `required with ${which}: name exactly one chain (a block number belongs to one chain)`,
    );
  }
  const { chains, warnings } = resolveSingleChain(ctx.registry, query.chain_ids, {
    resultNoun: 'Balances',
    docsUrl: supportedChainsUrl(request),
  });
  await assertChainsReady(ctx.statusSource, chains);
  const chain = chains[0];
  const chainIds = chains.map((c) => c.chainId);
  const at = chain ? await resolvePastBlock(ctx.db, chain, past) : undefined;
  const scope = [
    'balances-at',
    address,
    chain?.chainId ?? '',
    at?.number ?? '',
    query.filters ?? '',
    query.asset_class ?? '',
    query.exclude_spam_tokens,
    query.exclude_unpriced,
  ].join('|');
  const after = decodeBalanceCursor(ctx, scope, query.offset);
  return sendCached(
    request,
    reply,
    ctx.caching,
    // Fixed block: no minute expiry even with historical_prices (they count back from the block).
    {
      cacheable: true,
      cacheControl: 'private, no-cache',
      requestTime,
      // A past block changes only by a reorg or new price history: any change of the chain.
      deps: walletAndChainDeps(address, chainIds),
    },
    async (times) => {
      let rows: Awaited<ReturnType<typeof historicalBalancesPage>>['rows'] = [];
      let resumeAfter: BalanceKey | undefined;
      const allWarnings: unknown[] = [...warnings];
      const tokens = query.asset_class === 'stablecoin' ? chain?.stablecoins : undefined;
      if (chain && at && !(tokens && tokens.length === 0)) {
        const page = await historicalBalancesPage({
          ctx,
          reader: ctx.pastState,
          chain,
          at,
          wallet: address,
          query: {
            only: query.filters,
            tokens,
            minPoolUsd: query.exclude_spam_tokens ? ctx.spamPoolUsd : undefined,
            withPools: query.metadata?.includes('pools'),
            after,
          },
          excludeUnpriced: query.exclude_unpriced,
          limit: query.limit,
        });
        rows = page.rows;
        resumeAfter = page.scanStoppedAt;
        if (page.unavailable.length > 0) {
          allWarnings.push(unavailableWarning(chain, at, page.unavailable));
        }
        if (resumeAfter) allWarnings.push(scanLimitWarning(chain, ctx.scope));
      }
      const history = await loadBalanceHistory(
        rows.slice(0, query.limit),
        query.historical_prices,
        at?.time ?? requestTime,
        ctx.pricing,
      );
      const body = balancesPageBody({
        ctx,
        address,
        chains,
        rows,
        limit: query.limit,
        historicalPrices: query.historical_prices,
        metadata: query.metadata,
        warnings: allWarnings,
        scope,
        history,
        resumeAfter,
      });
      if (at) {
        body.block_number = Number(at.number);
        body.block_time = at.time.toISOString();
      }
      return { ...body, ...times };
    },
  );
}
