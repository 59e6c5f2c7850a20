import type { FastifyInstance } from 'fastify';
import { allowOnly } from './method-not-allowed.js';
import type { RouteContext } from './route-context.js';

/** `GET /health`: 200 when the database answers, 503 otherwise. */
export async function healthRoutes(
  app: FastifyInstance,
  { store, databaseKind }: RouteContext,
): Promise<void> {
  app.get(
    '/health',
    {
      logLevel: 'warn',
      schema: {
        summary: 'Health check (queries the database)',
        tags: ['operations'],
        response: {
          200: {
            type: 'object',
            properties: { status: { type: 'string' }, database: { type: 'string' } },
          },
          503: {
            type: 'object',
            properties: {
              status: { type: 'string' },
              database: { type: 'string' },
              message: { type: 'string' },
            },
          },
        },
      },
    },
    async (request, reply) => {
      try {
        await store.ping();
        return { status: 'ok', database: databaseKind };
      } catch (err) {
        request.log.error({ err }, 'health check: database unavailable');
        return reply
          .code(503)
          .send({ status: 'unavailable', database: databaseKind, message: 'Database unavailable' });
      }
    },
  );
  allowOnly(app, '/health', ['GET']);
}
