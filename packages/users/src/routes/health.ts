import type { FastifyInstance } from 'fastify';
import { allowOnly } from './method-not-allowed.js';
import type { RouteContext } from './route-context.js';

/** Why the database did not answer in time (the ping itself is left to its own timeouts). */
class HealthDeadline extends Error {
  override readonly name = 'HealthDeadline';
}

/**
 * `GET /health`: 200 when the database answers, 503 otherwise, and 503 "Database unreachable"
 * after `healthTimeoutMs` when it does not answer at all (frozen, or every connection busy).
 */
export async function healthRoutes(
  app: FastifyInstance,
  { store, databaseKind, healthTimeoutMs }: RouteContext,
): Promise<void> {
  // One ping at a time: probes repeated while the database hangs share it instead of each
  // holding a pool connection until the statement timeout.
  let pending: Promise<void> | undefined;
  const ping = (): Promise<void> => {
    pending ??= store.ping().finally(() => {
      pending = undefined;
    });
    return pending;
  };
  const pingWithin = async (ms: number): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        ping(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new HealthDeadline()), ms);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
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
        await pingWithin(healthTimeoutMs);
        return { status: 'ok', database: databaseKind };
      } catch (err) {
        const unreachable = err instanceof HealthDeadline;
        request.log.error(
          unreachable ? { timeoutMs: healthTimeoutMs } : { err },
          unreachable
            ? 'health check: database did not answer'
            : 'health check: database unavailable',
        );
        return reply.code(503).send({
          status: 'unavailable',
          database: databaseKind,
          message: unreachable
            ? `Database unreachable: no answer within ${healthTimeoutMs} ms`
            : 'Database unavailable',
        });
      }
    },
  );
  allowOnly(app, '/health', ['GET']);
}
