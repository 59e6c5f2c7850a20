import type { FastifyInstance } from 'fastify';
import { chainIdsParam, resolveChains } from '../chain-selector.js';
import { type ApiContext, supportedChainsUrl } from '../context.js';
import { cursorParam } from '../cursor.js';
import { asOfParam, blockNumberParam, pastBlockRequest } from '../history/past-block.js';
import { sendHistoricalBalances } from '../history/send-historical-balances.js';
import { walletAddressParam } from '../params/address-params.js';
import { booleanParam, enumListParam, enumParam } from '../params/choice-params.js';
import { historicalPricesParam, limitParam } from '../params/number-params.js';
import { defineParams } from '../params/param-spec.js';
import { selectBalances } from '../queries/balances-query.js';
import { assertChainsReady } from '../readiness.js';
import { requestContext } from '../request-context.js';
import { walletDeps } from '../response-cache/cache-deps.js';
import { nextMinute } from '../response-cache/next-minute.js';
import { type SendCachedOptions, sendCached } from '../response-cache/send-cached.js';
import { balancesResponseSchema } from '../schemas/balance-schemas.js';
import { errorResponses } from '../schemas/common-schemas.js';
import { walletBackfillGate } from '../wallet-backfill.js';
import { balancesPageAnswer, decodeBalanceCursor } from './balances-page.js';

export const metadataParam = enumListParam(
  ['logo', 'url', 'pools'] as const,
  'Comma-separated extra fields: `logo`, `url` (in `token_metadata`), `pools` (the pricing `pool`).',
  'string',
);

const pathParams = defineParams({ address: walletAddressParam });
const queryParams = defineParams({
  chain_ids: chainIdsParam(),
  filters: enumParam(['erc20', 'native'] as const, '`erc20` or `native` only.'),
  asset_class: enumParam(['stablecoin'] as const, '`stablecoin`: only stablecoin balances.'),
  metadata: metadataParam,
  exclude_spam_tokens: booleanParam(
    false,
    'Drop tokens whose pricing pool holds less than 100 USD (or that have none).',
  ),
  exclude_unpriced: booleanParam(false, 'Drop balances without a price.'),
  historical_prices: historicalPricesParam,
  offset: cursorParam,
  limit: limitParam({ min: 1, max: 1000, fallback: 1000 }),
  block_number: blockNumberParam,
  as_of: asOfParam,
});

/** How balance answers are cached: per-request times; with history, only until the minute ends. */
export function balanceCaching(
  requestTime: Date,
  historicalPrices: readonly number[] | undefined,
  deps: SendCachedOptions['deps'],
): SendCachedOptions {
  return {
    cacheable: true,
    cacheControl: 'private, no-cache',
    requestTime,
    // historical_prices is relative to now, resolved to the minute.
    expiresAt: historicalPrices ? nextMinute(requestTime) : undefined,
    deps,
  };
}

/** GET /v1/evm/balances/{address} */
export function balancesRoute(shared: ApiContext) {
  return async (app: FastifyInstance) => {
    app.get(
      '/balances/:address',
      {
        config: { errorFormat: 'message' },
        schema: {
          tags: ['balances'],
          summary: 'Token balances of a wallet',
          description:
            "Native and ERC20 balances of every token the wallet touched, with USD prices, values and pool liquidity computed from on-chain pools. Ordered by chain, native first, then token address; paginated with `next_offset`. Errors are JSON `{message}`.\n\nWith `block_number` or `as_of` (beyond the peer), the same answer as it was at the end of that past block of the one chain named by `chain_ids`, from stored history: prices at the block's time, `block_number`/`block_time` added. A block above the last indexed one, below the first, or a time outside the indexed range is a 400.",
          operationId: 'getEvmBalances',
          params: pathParams.schema,
          querystring: queryParams.schema,
          response: { 200: balancesResponseSchema, ...errorResponses('message', true) },
        },
      },
      async (request, reply) => {
        const ctx = requestContext(shared, request);
        const requestTime = new Date();
        const { address } = pathParams.parse(request.params);
        const query = queryParams.parse(request.query);
        const past = pastBlockRequest(query.block_number, query.as_of);
        if (past) return sendHistoricalBalances(ctx, request, reply, address, query, past);
        const { chains, warnings } = resolveChains(ctx.registry, query.chain_ids, {
          resultNoun: 'Balances',
          docsUrl: supportedChainsUrl(request),
        });
        const scope = [
          'balances',
          address,
          chains.map((c) => c.chainId).join(','),
          query.filters ?? '',
          query.asset_class ?? '',
          query.exclude_spam_tokens,
          query.exclude_unpriced,
        ].join('|');
        const after = decodeBalanceCursor(ctx, scope, query.offset);
        await assertChainsReady(ctx.statusSource, chains);
        const complete = await walletBackfillGate(ctx, reply, address, chains, warnings);

        const stablecoins =
          query.asset_class === 'stablecoin'
            ? chains.flatMap((c) => c.stablecoins.map((a) => [c.chainId, a] as const))
            : undefined;
        const chainIds = chains.map((c) => c.chainId);
        return sendCached(
          request,
          reply,
          ctx.caching,
          {
            ...balanceCaching(requestTime, query.historical_prices, () =>
              walletDeps(address, chainIds),
            ),
            cacheable: complete,
          },
          balancesPageAnswer({
            ctx,
            address,
            chains,
            query,
            warnings,
            scope,
            requestTime,
            rows: async () =>
              chains.length === 0 || (stablecoins && stablecoins.length === 0)
                ? []
                : await selectBalances(ctx.db, {
                    wallet: address,
                    chainIds,
                    only: query.filters,
                    tokens: stablecoins && {
                      chainIds: stablecoins.map(([id]) => id),
                      addresses: stablecoins.map(([, a]) => a),
                    },
                    minPoolUsd: query.exclude_spam_tokens ? ctx.spamPoolUsd : undefined,
                    excludeUnpriced: query.exclude_unpriced,
                    withPools: query.metadata?.includes('pools'),
                    after,
                    limit: query.limit + 1,
                  }),
          }),
        );
      },
    );
  };
}
