import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';
import { sendWithEtag } from '../http-cache.js';

/** Endpoints every served chain supports here (names as in the peer's chain table). */
export const servedEndpoints = ['activity', 'balances', 'collectibles'] as const;

const chainsResponseSchema = {
  type: 'object',
  required: ['chains'],
  properties: {
    chains: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'id', 'tags'],
        properties: {
          id: { type: 'integer' },
          chain_id: { type: 'integer' },
          name: { type: 'string' },
          tags: { type: 'array', items: { type: 'string' } },
          supported_assets: { type: 'array', items: { type: 'string' } },
          endpoints: { type: 'array', items: { type: 'string' } },
          native_symbol: { type: 'string' },
          explorer_url: { type: 'string' },
          logo: { type: 'string' },
        },
      },
    },
  },
};

/** GET /v1/evm/supported-chains (no key): the chains this deployment indexes. */
export function supportedChainsRoute(ctx: ApiContext) {
  const body = {
    chains: ctx.registry.served.map((chain) => ({
      id: chain.chainId,
      chain_id: chain.chainId,
      name: chain.name,
      tags: chain.tags,
      supported_assets: ['native', 'erc20', 'erc721', 'erc1155'],
      endpoints: [...servedEndpoints],
      native_symbol: chain.nativeSymbol,
      ...(chain.explorerUrl ? { explorer_url: chain.explorerUrl } : {}),
      ...(chain.logoUrl ? { logo: chain.logoUrl } : {}),
    })),
  };
  return async (app: FastifyInstance) => {
    app.get(
      '/supported-chains',
      {
        config: { errorFormat: 'error' },
        schema: {
          tags: ['supported-chains'],
          summary: 'Chains served by this deployment',
          description:
            'Each chain with its id, name, tags (usable in `chain_ids`) and the endpoints it supports. No API key needed.',
          operationId: 'getEvmSupportedChains',
          security: [],
          response: { 200: chainsResponseSchema },
        },
      },
      async (request, reply) => sendWithEtag(request, reply, body, 'public, max-age=60'),
    );
  };
}
