import type { FastifyInstance } from 'fastify';
import type { createConsoleStatus } from '../console/console-status.js';

/**
 * `GET /v1/console/status` (keyed): per chain, /health's status plus rates over the last
 * minutes, an ETA, node capabilities, reorgs and worker queues; the console polls it.
 */
export function consoleStatusRoute(status: ReturnType<typeof createConsoleStatus>) {
  return async (app: FastifyInstance) => {
    app.get(
      '/status',
      {
        config: { errorFormat: 'error' },
        // Documented in docs/console.md; the OpenAPI document stays the Sim-compatible surface.
        schema: {
          hide: true,
          tags: ['console'],
          summary: 'Indexing progress, rates, node capabilities and worker queues per chain',
          operationId: 'getConsoleStatus',
        },
      },
      async (_request, reply) => {
        reply.header('cache-control', 'no-store');
        return status.snapshot();
      },
    );
  };
}
