import type { FastifyInstance } from 'fastify';
import { DEFI_FAMILIES } from '../../defi/protocol-labels.js';
import type { ApiContext } from '../context.js';
import { booleanParam } from '../params/choice-params.js';
import { defineParams } from '../params/param-spec.js';
import { sendCached } from '../response-cache/send-cached.js';
import { errorResponses } from '../schemas/common-schemas.js';
import { supportedProtocolsResponseSchema } from '../schemas/defi-schemas.js';

const queryParams = defineParams({
  include_preview_chains: booleanParam(
    false,
    'Include chains in preview status. Every chain listed here is `stable` (detection is by contract interface, the same on every chain), so this changes nothing.',
  ),
  include_preview_protocols: booleanParam(
    false,
    'Include protocols in preview status. None is in preview, so this changes nothing.',
  ),
});

/** GET /v1/evm/defi/supported-protocols */
export function defiSupportedProtocolsRoute(ctx: ApiContext) {
  return async (app: FastifyInstance) => {
    app.get(
      '/defi/supported-protocols',
      {
        config: { errorFormat: 'error' },
        schema: {
          tags: ['defi'],
          summary: 'DeFi protocol families this server detects, per chain',
          description:
            "`uniswap_v2` (any pair answering token0/token1/getReserves/totalSupply; labels from the pair's name), `uniswap_v3` (any NonfungiblePositionManager), `erc4626` (any vault), each on every served chain whose node this server can read.",
          operationId: 'getEvmDefiSupportedProtocols',
          querystring: queryParams.schema,
          response: { 200: supportedProtocolsResponseSchema, ...errorResponses('error', false) },
        },
      },
      async (request, reply) => {
        queryParams.parse(request.query);
        const chains = ctx.registry.served
          .filter((chain) => ctx.rpc?.has(chain.chainId))
          .map((chain) => ({ chain_id: chain.chainId, chain_name: chain.name, status: 'stable' }));
        return sendCached(
          request,
          reply,
          ctx.caching,
          {
            cacheable: true,
            cacheControl: 'private, max-age=0, must-revalidate',
            etag: true,
            deps: [],
          },
          async () => ({
            protocol_families: DEFI_FAMILIES.map((f) => ({
              family: f.family,
              chains,
              sub_protocols: [...f.subProtocols],
            })),
          }),
        );
      },
    );
  };
}
