import type { FastifyInstance } from 'fastify';
import { chainIdsParam, resolveChains } from '../chain-selector.js';
import { type ApiContext, supportedChainsUrl } from '../context.js';
import { portfolioSeries } from '../history/portfolio-series.js';
import { walletAddressParam } from '../params/address-params.js';
import { limitParam } from '../params/number-params.js';
import { defineParams } from '../params/param-spec.js';
import { assertChainsReady } from '../readiness.js';
import { requestContext } from '../request-context.js';
import { walletAndChainDeps } from '../response-cache/cache-deps.js';
import { sendCached } from '../response-cache/send-cached.js';
import { errorResponses } from '../schemas/common-schemas.js';
import { portfolioResponseSchema } from '../schemas/portfolio-schemas.js';

/** Longest series the portfolio endpoint serves, in days. */
export const maxPortfolioDays = 365;

const pathParams = defineParams({ address: walletAddressParam });
const queryParams = defineParams({
  chain_ids: chainIdsParam(),
  days: {
    ...limitParam({ min: 1, max: maxPortfolioDays, fallback: 30 }),
    description: `Number of daily points, 1 to ${maxPortfolioDays} (default 30); larger values are reduced to ${maxPortfolioDays}.`,
  },
});

/** GET /v1/evm/portfolio/{address} (beyond the peer). */
export function portfolioRoute(shared: ApiContext) {
  return async (app: FastifyInstance) => {
    app.get(
      '/portfolio/:address',
      {
        config: { errorFormat: 'message' },
        schema: {
          tags: ['balances'],
          summary: 'Daily USD value of a wallet over the last N days',
          description:
            "Beyond the peer. One point per UTC day (end of day; the last point is now), per chain and in total: the balances at the last indexed block of that day (the historical balances endpoint's exact amounts) times each token's price at that time. Holdings without a price then are listed in `unpriced_tokens` and left out of `value_usd`. At most `PORTFOLIO_MAX_TOKENS` tokens per chain are valued (those with a price history first, most liquid first; a `PORTFOLIO_TOKENS_CAPPED` warning counts the rest) and at most `REQUEST_MAX_NODE_READS` past blocks are read from the node (docs/limits.md). Errors are JSON `{message}`.",
          operationId: 'getEvmPortfolio',
          params: pathParams.schema,
          querystring: queryParams.schema,
          response: { 200: portfolioResponseSchema, ...errorResponses('message', true) },
        },
      },
      async (request, reply) => {
        const ctx = requestContext(shared, request);
        const requestTime = new Date();
        const { address } = pathParams.parse(request.params);
        const query = queryParams.parse(request.query);
        const { chains, warnings } = resolveChains(ctx.registry, query.chain_ids, {
          resultNoun: 'Portfolio values',
          docsUrl: supportedChainsUrl(request),
        });
        await assertChainsReady(ctx.statusSource, chains);
        const tomorrow = Math.floor(requestTime.getTime() / 86_400_000 + 1) * 86_400_000;
        return sendCached(
          request,
          reply,
          ctx.caching,
          // The last point is "now" and prices move without blocks: reuse for a minute at most.
          {
            cacheable: true,
            cacheControl: 'private, no-cache',
            requestTime,
            expiresAt: Math.min(tomorrow, requestTime.getTime() + 60_000),
            // A series over all prices and past balances: any change of its chains.
            deps: walletAndChainDeps(
              address,
              chains.map((c) => c.chainId),
            ),
          },
          async (times) => {
            const { points, unavailable, capped } = await portfolioSeries(
              ctx,
              address,
              chains,
              query.days,
              requestTime,
            );
            const allWarnings: unknown[] = [...warnings];
            for (const [chain, { valued, held }] of capped) {
              allWarnings.push({
                code: 'PORTFOLIO_TOKENS_CAPPED',
                message: `The wallet holds ${held} tokens on ${chain.name}; the ${valued} valued are those with a price history, most liquid first (PORTFOLIO_MAX_TOKENS). The others are left out of every point.`,
                chain_ids: [chain.chainId],
              });
            }
            for (const [chain, tokens] of unavailable) {
              allWarnings.push({
                code: 'HISTORICAL_STATE_UNAVAILABLE',
                message: `Some balances on ${chain.name} could not be read at past blocks (${[...tokens].slice(0, 20).join(', ')}): they do not follow from indexed events and the node could not serve that state (an archive node is needed); those points are marked complete: false and leave them out.`,
                chain_ids: [chain.chainId],
              });
            }
            const body: Record<string, unknown> = {
              request_time: times.request_time,
              wallet_address: address,
              days: query.days,
              currency: 'usd',
              points,
            };
            if (allWarnings.length > 0) body.warnings = allWarnings;
            body.response_time = times.response_time;
            return body;
          },
        );
      },
    );
  };
}
