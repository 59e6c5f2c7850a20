import type { FastifyInstance } from 'fastify';
import { shapeBalances } from '../balance-shape.js';
import { chainIdsParam, resolveChains } from '../chain-selector.js';
import { type ApiContext, supportedChainsUrl } from '../context.js';
import { cursorParam } from '../cursor.js';
import { walletAddressParam } from '../params/address-params.js';
import { booleanParam, enumListParam, enumParam } from '../params/choice-params.js';
import { historicalPricesParam, limitParam } from '../params/number-params.js';
import { defineParams } from '../params/param-spec.js';
import { type BalanceKey, selectBalances } from '../queries/balances-query.js';
import { assertChainsReady } from '../readiness.js';
import { nextMinute } from '../response-cache/next-minute.js';
import { type SendCachedOptions, sendCached } from '../response-cache/send-cached.js';
import { balancesResponseSchema } from '../schemas/balance-schemas.js';
import { errorResponses } from '../schemas/common-schemas.js';

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
});

/** How balance answers are cached: per-request times; with history, only until the minute ends. */
export function balanceCaching(
  requestTime: Date,
  historicalPrices: readonly number[] | undefined,
): SendCachedOptions {
  return {
    cacheable: true,
    cacheControl: 'private, no-cache',
    requestTime,
    // historical_prices is relative to now, resolved to the minute.
    expiresAt: historicalPrices ? nextMinute(requestTime) : undefined,
  };
}

function isBalanceKey(key: readonly (string | number)[]): key is BalanceKey {
  return (
    key.length === 3 &&
    Number.isInteger(key[0]) &&
    (key[1] === 0 || key[1] === 1) &&
    typeof key[2] === 'string'
  );
}

/** GET /v1/evm/balances/{address} */
export function balancesRoute(ctx: ApiContext) {
  return async (app: FastifyInstance) => {
    app.get(
      '/balances/:address',
      {
        config: { errorFormat: 'message' },
        schema: {
          tags: ['balances'],
          summary: 'Token balances of a wallet',
          description:
            'Native and ERC20 balances of every token the wallet touched, with USD prices, values and pool liquidity computed from on-chain pools. Ordered by chain, native first, then token address; paginated with `next_offset`. Errors are JSON `{message}`.',
          operationId: 'getEvmBalances',
          params: pathParams.schema,
          querystring: queryParams.schema,
          response: { 200: balancesResponseSchema, ...errorResponses('message', true) },
        },
      },
      async (request, reply) => {
        const requestTime = new Date();
        const { address } = pathParams.parse(request.params);
        const query = queryParams.parse(request.query);
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
        let after: BalanceKey | undefined;
        if (query.offset) {
          const key = ctx.cursors.decode(scope, query.offset);
          if (!isBalanceKey(key)) throw ctx.cursors.invalid();
          after = key;
        }
        await assertChainsReady(ctx.statusSource, chains);

        const stablecoins =
          query.asset_class === 'stablecoin'
            ? chains.flatMap((c) => c.stablecoins.map((a) => [c.chainId, a] as const))
            : undefined;
        return sendCached(
          request,
          reply,
          ctx.caching,
          balanceCaching(requestTime, query.historical_prices),
          async (times) => {
            const rows =
              chains.length === 0 || (stablecoins && stablecoins.length === 0)
                ? []
                : await selectBalances(ctx.db, {
                    wallet: address,
                    chainIds: chains.map((c) => c.chainId),
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
                  });
            const page = rows.slice(0, query.limit);
            const balances = await shapeBalances(
              page,
              new Map(chains.map((c) => [c.chainId, c])),
              {
                historicalOffsets: query.historical_prices,
                metadata: query.metadata,
                lowLiquidityUsd: ctx.lowLiquidityUsd,
              },
              requestTime,
              ctx.pricing,
            );
            const body: Record<string, unknown> = { wallet_address: address, balances };
            if (warnings.length > 0) body.warnings = warnings;
            const last = page.at(-1);
            if (rows.length > query.limit && last) {
              body.next_offset = ctx.cursors.encode(scope, [
                last.chain_id,
                last.kind,
                last.address,
              ]);
            }
            return { ...body, ...times };
          },
        );
      },
    );
  };
}
