import type { FastifyInstance } from 'fastify';
import type { ChainConfig } from '../../chains/chain-config.js';
import { chainIdsParam, resolveChains } from '../chain-selector.js';
import { type ApiContext, supportedChainsUrl } from '../context.js';
import { cursorParam } from '../cursor.js';
import { walletAddressParam } from '../params/address-params.js';
import { booleanParam, enumParam } from '../params/choice-params.js';
import { historicalPricesParam, limitParam } from '../params/number-params.js';
import { defineParams } from '../params/param-spec.js';
import { type BalanceRow, selectBalances } from '../queries/balances-query.js';
import { assertChainsReady } from '../readiness.js';
import { requestContext } from '../request-context.js';
import { walletDeps } from '../response-cache/cache-deps.js';
import { sendCached } from '../response-cache/send-cached.js';
import { balancesResponseSchema } from '../schemas/balance-schemas.js';
import { errorResponses } from '../schemas/common-schemas.js';
import { balanceCaching, metadataParam } from './balances.js';
import { balancesPageAnswer, decodeBalanceCursor } from './balances-page.js';

/** Native assets pegged to the US dollar (Gnosis xDAI). */
const stableNativeSymbols: ReadonlySet<string> = new Set(['XDAI']);

/** True when the chain's native asset is a stablecoin. */
export function hasStableNative(chain: ChainConfig): boolean {
  return stableNativeSymbols.has(chain.nativeSymbol.toUpperCase());
}

const pathParams = defineParams({ address: walletAddressParam });
const queryParams = defineParams({
  chain_ids: chainIdsParam(),
  filters: enumParam(
    ['erc20', 'native'] as const,
    '`erc20`: only ERC20 stablecoins; `native`: only native stablecoins (xDAI on Gnosis).',
  ),
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

const byKey = (a: BalanceRow, b: BalanceRow) =>
  a.chain_id - b.chain_id || a.kind - b.kind || (a.address < b.address ? -1 : 1);

/** GET /v1/evm/balances/{address}/stablecoins */
export function stablecoinsRoute(shared: ApiContext) {
  return async (app: FastifyInstance) => {
    app.get(
      '/balances/:address/stablecoins',
      {
        config: { errorFormat: 'message' },
        schema: {
          tags: ['balances'],
          summary: 'Stablecoin balances of a wallet',
          description:
            "The balances endpoint restricted to each chain's configured stablecoins (and USD-pegged native assets such as xDAI), with the same filters, ordering and `next_offset` paging. Errors are JSON `{message}`.",
          operationId: 'getEvmStablecoinBalances',
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
        const { chains, warnings } = resolveChains(ctx.registry, query.chain_ids, {
          resultNoun: 'Balances',
          docsUrl: supportedChainsUrl(request),
        });
        const scope = [
          'stablecoins',
          address,
          chains.map((c) => c.chainId).join(','),
          query.filters ?? '',
          query.exclude_spam_tokens,
          query.exclude_unpriced,
        ].join('|');
        const after = decodeBalanceCursor(ctx, scope, query.offset);
        await assertChainsReady(ctx.statusSource, chains);
        const stable = chains.flatMap((c) => c.stablecoins.map((a) => [c.chainId, a] as const));
        const nativeChains = chains.filter(hasStableNative).map((c) => c.chainId);
        const common = {
          wallet: address,
          minPoolUsd: query.exclude_spam_tokens ? ctx.spamPoolUsd : undefined,
          excludeUnpriced: query.exclude_unpriced,
          withPools: query.metadata?.includes('pools'),
          after,
          limit: query.limit + 1,
        };
        return sendCached(
          request,
          reply,
          ctx.caching,
          balanceCaching(
            requestTime,
            query.historical_prices,
            walletDeps(
              address,
              chains.map((c) => c.chainId),
            ),
          ),
          balancesPageAnswer({
            ctx,
            address,
            chains,
            query,
            warnings,
            scope,
            requestTime,
            rows: async () => {
              // ERC20 stablecoins and stable natives are two keyset scans merged in key order.
              const [tokens, natives] = await Promise.all([
                query.filters === 'native' || stable.length === 0
                  ? []
                  : selectBalances(ctx.db, {
                      ...common,
                      chainIds: [...new Set(stable.map(([id]) => id))],
                      only: 'erc20',
                      tokens: {
                        chainIds: stable.map(([id]) => id),
                        addresses: stable.map(([, a]) => a.toLowerCase()),
                      },
                    }),
                query.filters === 'erc20' || nativeChains.length === 0
                  ? []
                  : selectBalances(ctx.db, { ...common, chainIds: nativeChains, only: 'native' }),
              ]);
              return [...tokens, ...natives].sort(byKey).slice(0, query.limit + 1);
            },
          }),
        );
      },
    );
  };
}
