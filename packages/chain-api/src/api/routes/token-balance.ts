import type { FastifyInstance } from 'fastify';
import { shapeBalanceRows } from '../balance-shape.js';
import { chainIdsParam, resolveSingleChain } from '../chain-selector.js';
import { type ApiContext, supportedChainsUrl } from '../context.js';
import { tokenOrNativeParam, walletAddressParam } from '../params/address-params.js';
import { historicalPricesParam } from '../params/number-params.js';
import { defineParams } from '../params/param-spec.js';
import { type BalanceRow, selectBalances } from '../queries/balances-query.js';
import { preparedQuery } from '../queries/prepared-query.js';
import { assertChainsReady } from '../readiness.js';
import { requestContext } from '../request-context.js';
import { tokenDeps, walletTokenDeps } from '../response-cache/cache-deps.js';
import { sendCached } from '../response-cache/send-cached.js';
import { singleBalanceResponseSchema } from '../schemas/balance-schemas.js';
import { errorResponses } from '../schemas/common-schemas.js';
import { balanceCaching, metadataParam } from './balances.js';
import { balanceAnswer } from './balances-page.js';

const pathParams = defineParams({
  address: walletAddressParam,
  token_address: tokenOrNativeParam,
});
const queryParams = defineParams({
  chain_ids: chainIdsParam(true),
  metadata: metadataParam,
  historical_prices: historicalPricesParam,
});

/** GET /v1/evm/balances/{address}/token/{token_address} */
export function tokenBalanceRoute(shared: ApiContext) {
  return async (app: FastifyInstance) => {
    app.get(
      '/balances/:address/token/:token_address',
      {
        config: { errorFormat: 'message' },
        schema: {
          tags: ['balances'],
          summary: 'Balance of one token (or the native asset) on one chain',
          description:
            'Same balance object as the balances endpoint, for one token on exactly one chain (`chain_ids` is required and must name one chain). A token the wallet never held answers amount "0". Errors are JSON `{message}`.',
          operationId: 'getEvmSingleTokenBalance',
          params: pathParams.schema,
          querystring: queryParams.schema,
          response: { 200: singleBalanceResponseSchema, ...errorResponses('message', true) },
        },
      },
      async (request, reply) => {
        const ctx = requestContext(shared, request);
        const requestTime = new Date();
        const { address, token_address: token } = pathParams.parse(request.params);
        const query = queryParams.parse(request.query);
        const { chains, warnings } = resolveSingleChain(ctx.registry, query.chain_ids, {
          resultNoun: 'Balances',
          docsUrl: supportedChainsUrl(request),
        });
        await assertChainsReady(ctx.statusSource, chains);
        const chain = chains[0];
        const withPools = query.metadata?.includes('pools');
        return sendCached(
          request,
          reply,
          ctx.caching,
          balanceCaching(requestTime, query.historical_prices, () =>
            chain ? walletTokenDeps(address, chain.chainId, token) : [],
          ),
          balanceAnswer({
            ctx,
            chains,
            limit: 1,
            historicalPrices: query.historical_prices,
            requestTime,
            withPools,
            priceFiltered: false,
            rows: async () => {
              if (!chain) return [];
              const rows = await selectBalances(ctx.db, {
                wallet: address,
                chainIds: [chain.chainId],
                only: token === 'native' ? 'native' : 'erc20',
                tokens:
                  token === 'native'
                    ? undefined
                    : { chainIds: [chain.chainId], addresses: [token] },
                includeZero: true,
                withPools,
                limit: 1,
              });
              if (rows.length === 0) rows.push(await zeroBalance(ctx, chain.chainId, token));
              return rows;
            },
            // Not held: the answer shows what the store knows of the token, which can change
            // without the wallet.
            moreDeps: (rows) =>
              chain && rows[0]?.amount === '0' ? tokenDeps(chain.chainId, token) : [],
            body: (rows, history, times) => {
              const balances = chain
                ? shapeBalanceRows(
                    rows,
                    new Map([[chain.chainId, chain]]),
                    {
                      historicalOffsets: query.historical_prices,
                      metadata: query.metadata,
                      lowLiquidityUsd: ctx.lowLiquidityUsd,
                    },
                    history,
                    ctx.pricing,
                  )
                : [];
              const body: Record<string, unknown> = {
                request_time: times.request_time,
                wallet_address: address,
                balances,
              };
              if (warnings.length > 0) body.warnings = warnings;
              body.response_time = times.response_time;
              return body;
            },
          }),
        );
      },
    );
  };
}

/** A wallet that never held the token: amount 0 with whatever the store knows of the token. */
async function zeroBalance(ctx: ApiContext, chainId: number, token: string): Promise<BalanceRow> {
  const { rows } = await preparedQuery<
    Omit<BalanceRow, 'chain_id' | 'kind' | 'address' | 'amount'>
  >(
    ctx.db,
    `select t.name, t.symbol, t.decimals, p.price_usd, p.pool_size, p.low_liquidity,
            p.pool_type, p.pool_address, p.pool_tokens
       from (select $1::int as chain_id, $2::text as address) k
       left join tokens t on t.chain_id = k.chain_id and t.address = k.address
       left join token_prices p on p.chain_id = k.chain_id and p.token = k.address`,
    [chainId, token],
  );
  const row = rows[0]!;
  return {
    chain_id: chainId,
    kind: token === 'native' ? 0 : 1,
    address: token,
    amount: '0',
    ...row,
  };
}
