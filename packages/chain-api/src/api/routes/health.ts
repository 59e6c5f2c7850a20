import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';

const healthSchema = {
  type: 'object',
  required: ['status', 'chains'],
  properties: {
    status: { type: 'string', enum: ['ok', 'syncing', 'error'] },
    database: { type: 'string', enum: ['ok', 'unreachable'] },
    chains: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          chain_id: { type: 'integer' },
          name: { type: 'string' },
          head_block: { type: ['integer', 'null'] },
          indexed_block: { type: ['integer', 'null'] },
          lag_seconds: { type: ['number', 'null'] },
          ready: { type: 'boolean' },
        },
      },
    },
  },
};

/**
 * GET /health (no key, not rate limited): 200 with `ok` when every chain is ready, `syncing`
 * while some backfill or lost their node; 503 `error` when the database is unreachable.
 */
export function healthRoute(ctx: ApiContext & { ping(): Promise<void> }) {
  return async (app: FastifyInstance) => {
    app.get(
      '/health',
      {
        config: { errorFormat: 'error', rateLimit: false },
        schema: {
          tags: ['health'],
          summary: 'Liveness and indexing progress',
          operationId: 'getHealth',
          security: [],
          response: { 200: healthSchema, 503: healthSchema },
        },
      },
      async (_request, reply) => {
        reply.header('cache-control', 'no-store');
        try {
          await ctx.ping();
        } catch {
          return reply.code(503).send({ status: 'error', database: 'unreachable', chains: [] });
        }
        const chains = await ctx.statusSource.status();
        const status = chains.every((chain) => chain.ready) ? 'ok' : 'syncing';
        return { status, database: 'ok', chains };
      },
    );
  };
}
