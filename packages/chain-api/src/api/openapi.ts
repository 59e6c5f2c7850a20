import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { sendWithEtag } from './http-cache.js';

// The info block's link to the raw spec (/docs/json) is hidden too: /openapi.json is the one
// documented address of the spec, linked from the description.
const DOCS_CSS =
  '.swagger-ui .topbar,.swagger-ui .info hgroup.main>a{display:none}.swagger-ui .info{margin:30px 0}';

/**
 * OpenAPI 3 document generated from the route schemas (served at /openapi.json) and the
 * Swagger UI at /docs. Must be registered before the routes so it sees them.
 */
export async function registerOpenApi(app: FastifyInstance, version: string) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Sluice chain API',
        description:
          'Self-hosted EVM wallet data: activity, balances with on-chain USD prices, single-token balances and collectibles, indexed from your own JSON-RPC nodes. Drop-in compatible with the Sim API (`/v1/evm/...`, `X-Sim-Api-Key`). OpenAPI document: [/openapi.json](/openapi.json); health: [/health](/health).',
        version,
      },
      components: {
        securitySchemes: {
          ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-Sim-Api-Key' },
          BearerAuth: { type: 'http', scheme: 'bearer' },
        },
      },
      security: [{ ApiKeyAuth: [] }, { BearerAuth: [] }],
      tags: [
        { name: 'activity' },
        { name: 'balances' },
        { name: 'collectibles' },
        { name: 'supported-chains' },
        {
          name: 'subscriptions',
          description:
            'Webhook subscriptions (`/beta/evm/subscriptions/...`): the peer’s management operations plus secret rotation. Free of compute units.',
        },
        { name: 'health' },
      ],
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, layout: 'BaseLayout' },
    // Branded: the product's title, and no default top bar (Swagger's logo and a box pointing at
    // /docs/json); the API's own title heads the page.
    theme: {
      title: 'Sluice chain API · docs',
      css: [{ filename: 'sluice.css', content: DOCS_CSS }],
    },
    staticCSP: true,
  });
  app.get(
    '/openapi.json',
    { config: { errorFormat: 'error' }, schema: { hide: true } },
    async (request, reply) =>
      sendWithEtag(request, reply, JSON.stringify(app.swagger()), 'public, max-age=300'),
  );
}
