import type { FastifyInstance, HTTPMethods } from 'fastify';
import { UsersError } from '../errors.js';

const ALL: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/**
 * Answers the methods a path does not support: OPTIONS with 204 and `Allow`, the others with
 * 405 and `Allow`, instead of Fastify's 404 (or `/:id` catching `POST /users`-like requests).
 */
export function allowOnly(app: FastifyInstance, url: string, allowed: HTTPMethods[]): void {
  const allow =
    allowed.includes('GET') && !allowed.includes('HEAD') ? [...allowed, 'HEAD'] : allowed;
  const header = [...allow, 'OPTIONS'].join(', ');
  const others = ALL.filter((m) => !allow.includes(m));
  app.route({
    method: others,
    url,
    schema: { hide: true },
    handler: async (request, reply) => {
      if (request.method === 'OPTIONS') return reply.code(204).header('allow', header).send();
      throw new UsersError(
        'USERS_METHOD_NOT_ALLOWED',
        `Method ${request.method} is not allowed on ${url}; allowed: ${header}`,
        { headers: { allow: header } },
      );
    },
  });
}
