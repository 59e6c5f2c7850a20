import type { FastifyInstance } from 'fastify';
import { usdValue } from '../../shape/format.js';
import { shapeBalances } from '../balance-shape.js';
import { chainIdsParam, resolveSingleChain } from '../chain-selector.js';
import { type ApiContext, supportedChainsUrl } from '../context.js';
import { ApiError } from '../errors.js';
import { tokenOrNativeParam } from '../params/address-params.js';
import { historicalPricesParam } from '../params/number-params.js';
import { defineParams } from '../params/param-spec.js';
import { selectTokenInfo } from '../queries/token-info-query.js';
import { assertChainsReady } from '../readiness.js';
import { requestContext } from '../request-context.js';
import { historyDep, priceDep, tokenDeps } from '../response-cache/cache-deps.js';
import { sendCached } from '../response-cache/send-cached.js';
import { errorResponses, textErrorSchema } from '../schemas/common-schemas.js';
import { tokensResponseSchema } from '../schemas/token-info-schemas.js';
import { balanceCaching } from './balances.js';

const pathParams = defineParams({ address: tokenOrNativeParam });
const queryParams = defineParams({
  chain_ids: chainIdsParam(true),
  historical_prices: historicalPricesParam,
});

/** GET /v1/evm/token-info/{address} */
export function tokenInfoRoute(shared: ApiContext) {
  return async (app: FastifyInstance) => {
    app.get(
      '/token-info/:address',
      {
        config: { errorFormat: 'text' },
        schema: {
          tags: ['token-info'],
          summary: 'Metadata, price and supply of a token (or the native asset) on one chain',
          description:
            'Symbol, name, decimals, current USD price and pool liquidity from on-chain pools, optional `historical_prices`, logo, and `total_supply`/`market_cap` (sum of all indexed balances, on chains indexed from genesis). `chain_ids` must name exactly one chain. 404 for a token the index never saw. Errors are plain text.',
          operationId: 'getEvmTokenInfo',
          params: pathParams.schema,
          querystring: queryParams.schema,
          response: {
            200: tokensResponseSchema,
            ...errorResponses('text', true),
            404: {
              description: 'Token not found.',
              content: { 'text/plain': { schema: textErrorSchema } },
            },
          },
        },
      },
      async (request, reply) => {
        const ctx = requestContext(shared, request);
        const requestTime = new Date();
        const { address: token } = pathParams.parse(request.params);
        const query = queryParams.parse(request.query);
        const { chains, warnings } = resolveSingleChain(ctx.registry, query.chain_ids, {
          resultNoun: 'Tokens',
          docsUrl: supportedChainsUrl(request),
        });
        const chain = chains[0];
        if (!chain) {
          // A chain not served here: nothing to report, as the other endpoints do, with the warning.
          return reply.send({ contract_address: token, tokens: [], warnings });
        }
        await assertChainsReady(ctx.statusSource, chains);
        // Summing balances gives the supply only when every mint since genesis was indexed.
        const withSupply = token !== 'native' && chain.startBlock === 0n;
        const row = await selectTokenInfo(ctx.db, chain.chainId, token, withSupply);
        if (!row) throw new ApiError('NOT_FOUND', 'Token not found');
        // The row is read above, outside the cache: only its shaping is reused, until the token,
        // its price or the history it shows changes.
        const until =
          requestTime.getTime() / 1000 - Math.min(...(query.historical_prices ?? [0])) * 3_600;
        const caching = balanceCaching(requestTime, query.historical_prices, [
          ...tokenDeps(chain.chainId, token),
          priceDep(chain.chainId, token),
          ...(query.historical_prices
            ? [
                historyDep(chain.chainId, token, until),
                historyDep(chain.chainId, chain.wrappedNative?.toLowerCase() ?? 'native', until),
              ]
            : []),
        ]);
        return sendCached(
          request,
          reply,
          ctx.caching,
          { ...caching, requestTime: undefined },
          async () => {
            const [shaped] = await shapeBalances(
              [row],
              new Map([[chain.chainId, chain]]),
              {
                historicalOffsets: query.historical_prices,
                metadata: ['logo'],
                lowLiquidityUsd: ctx.lowLiquidityUsd,
              },
              requestTime,
              ctx.pricing,
            );
            const { address: _a, amount: _m, value_usd: _v, token_metadata, ...info } = shaped!;
            const tokenInfo: Record<string, unknown> = { ...info };
            if (row.total_supply !== null) {
              tokenInfo.total_supply = row.total_supply;
              const decimals = row.decimals;
              if (typeof info.price_usd === 'number' && decimals !== null) {
                tokenInfo.market_cap = usdValue(row.total_supply, decimals, info.price_usd);
              }
            }
            const logo = (token_metadata as { logo?: string } | undefined)?.logo;
            if (logo) tokenInfo.logo = logo;
            const body: Record<string, unknown> = { contract_address: token, tokens: [tokenInfo] };
            if (warnings.length > 0) body.warnings = warnings;
            return body;
          },
        );
      },
    );
  };
}
