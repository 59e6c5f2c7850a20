import type { FastifyInstance } from 'fastify';
import { WalletPositions } from '../../defi/wallet-positions.js';
import { chainIdsParam, resolveChains } from '../chain-selector.js';
import { type ApiContext, supportedChainsUrl } from '../context.js';
import { defiPositionsBody } from '../defi-positions-body.js';
import { walletAddressParam } from '../params/address-params.js';
import { defineParams } from '../params/param-spec.js';
import { assertChainsReady } from '../readiness.js';
import { requestContext } from '../request-context.js';
import { walletAndChainDeps } from '../response-cache/cache-deps.js';
import { sendCached } from '../response-cache/send-cached.js';
import { errorResponses } from '../schemas/common-schemas.js';
import { defiPositionsResponseSchema } from '../schemas/defi-schemas.js';

const pathParams = defineParams({ address: walletAddressParam });
const queryParams = defineParams({ chain_ids: chainIdsParam() });

/** GET /v1/evm/defi/positions/{address} */
export function defiPositionsRoute(shared: ApiContext) {
  return async (app: FastifyInstance) => {
    const reader = new WalletPositions(shared.writeDb, (error) =>
      app.log.warn({ err: (error as Error).message }, 'defi: probe answers not stored'),
    );
    app.get(
      '/defi/positions/:address',
      {
        config: { errorFormat: 'error' },
        schema: {
          tags: ['defi'],
          summary: 'DeFi positions of a wallet',
          description:
            "Uniswap-v2-style LP shares (any fork: pairs answering token0/token1/getReserves/totalSupply), Uniswap-v3-style position NFTs (any NonfungiblePositionManager: amounts at the pool's current price and uncollected fees, exact integer math) and ERC-4626 vault shares (`convertToAssets`), detected by probing the contracts the wallet holds (answers cached per contract). Every amount is read from the chain's node at the indexed head block (Multicall3 where deployed); USD values use the pricing tables (unpriced legs count 0). `aggregations` sums the values. Errors are JSON `{error}`; 503 while a chain's index is not ready or its node cannot be read.",
          operationId: 'getEvmDefiPositions',
          params: pathParams.schema,
          querystring: queryParams.schema,
          response: { 200: defiPositionsResponseSchema, ...errorResponses('error', true) },
        },
      },
      async (request, reply) => {
        const ctx = requestContext(shared, request);
        const { address } = pathParams.parse(request.params);
        const query = queryParams.parse(request.query);
        const { chains, warnings } = resolveChains(ctx.registry, query.chain_ids, {
          resultNoun: 'Positions',
          docsUrl: supportedChainsUrl(request),
        });
        await assertChainsReady(ctx.statusSource, chains);
        // Reads happen at the indexed head: the store's holdings and the chain agree there, and
        // every new indexed block moves the store version (so the cached answer with it).
        const statuses = await ctx.statusSource.status();
        const blocks = new Map(
          statuses
            .filter((s) => s.indexed_block !== null)
            .map((s) => [s.chain_id, BigInt(s.indexed_block as number)]),
        );
        return sendCached(
          request,
          reply,
          ctx.caching,
          {
            cacheable: true,
            cacheControl: 'private, max-age=0, must-revalidate',
            etag: true,
            // Values are node reads at the head (reserves, fees, vault rates): any chain change.
            deps: walletAndChainDeps(
              address,
              chains.map((c) => c.chainId),
            ),
          },
          () => defiPositionsBody(ctx, reader, address, chains, blocks, warnings),
        );
      },
    );
  };
}
