import type { FastifyInstance } from 'fastify';
import { UsersError } from '../errors.js';
import { parseId, parseUserUpdate } from '../user-input.js';
import { allowOnly } from './method-not-allowed.js';
import type { RouteContext } from './route-context.js';
import { errors, idParamsSchema, updateBodySchema, userSchema } from './schemas.js';

const notFound = (id: number) => new UsersError('USERS_NOT_FOUND', `No user with id ${id}`);

/**
 * `GET`, `PUT` and `DELETE /:id`. Static routes (/users, /add, /edit, /health, /assets/...) win
 * over this parametric one in Fastify's router, so it cannot swallow them.
 */
export async function byIdRoutes(app: FastifyInstance, { store }: RouteContext): Promise<void> {
  app.get(
    '/:id',
    {
      schema: {
        summary: 'Get a user',
        tags: ['users'],
        params: idParamsSchema,
        response: { 200: userSchema, ...errors(400, 404) },
      },
    },
    async (request) => {
      const id = parseId((request.params as { id: string }).id);
      const user = await store.get(id);
      if (!user) throw notFound(id);
      return user;
    },
  );
  app.put(
    '/:id',
    {
      schema: {
        summary: 'Replace name and pro of a user',
        description: 'The path id wins; a body id that differs is 400.',
        tags: ['users'],
        params: idParamsSchema,
        body: updateBodySchema,
        response: { 200: userSchema, ...errors(400, 404, 413, 415) },
      },
    },
    async (request) => {
      const id = parseId((request.params as { id: string }).id);
      const fields = parseUserUpdate(request.body, id);
      const user = await store.update(id, fields);
      if (!user) throw notFound(id);
      return user;
    },
  );
  app.delete(
    '/:id',
    {
      schema: {
        summary: 'Delete a user',
        tags: ['users'],
        params: idParamsSchema,
        response: { 204: { type: 'null', description: 'Deleted.' }, ...errors(400, 404) },
      },
    },
    async (request, reply) => {
      const id = parseId((request.params as { id: string }).id);
      if (!(await store.remove(id))) throw notFound(id);
      return reply.code(204).send();
    },
  );
  allowOnly(app, '/:id', ['GET', 'PUT', 'DELETE']);
}
