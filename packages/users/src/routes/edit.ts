import type { FastifyInstance } from 'fastify';
import { UsersError } from '../errors.js';
import { renderEditPage } from '../html/edit-page.js';
import { parseId } from '../user-input.js';
import { allowOnly } from './method-not-allowed.js';
import type { RouteContext } from './route-context.js';
import { errors } from './schemas.js';
import { sendPage } from './send-page.js';

function optionalText(query: Record<string, unknown>, name: 'name' | 'pro'): string | undefined {
  const value = query[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') {
    throw new UsersError('USERS_INVALID_QUERY', `${name} must be given at most once`, {
      fields: { [name]: 'must be given at most once' },
    });
  }
  return value;
}

/**
 * `GET /edit?id=&name=&pro=`: the edit page, prefilled from the query over the stored record.
 * It never changes data (GET stays safe); the form saves through `PUT /:id`.
 */
export async function editRoutes(app: FastifyInstance, { store }: RouteContext): Promise<void> {
  app.get(
    '/edit',
    {
      schema: {
        summary: 'The edit form (HTML)',
        description:
          'Prefilled from name/pro in the query, else the stored record. Changes nothing: the form ' +
          'saves with PUT /{id}. 404 when the id does not exist, 400 when it is malformed.',
        tags: ['pages'],
        querystring: {
          type: 'object',
          required: ['id'],
          properties: {
            id: { type: 'integer', minimum: 1 },
            name: { type: 'string' },
            pro: { type: 'string' },
          },
        },
        response: errors(400, 404),
      },
    },
    async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const id = parseId(query.id);
      const name = optionalText(query, 'name');
      const pro = optionalText(query, 'pro');
      const user = await store.get(id);
      if (!user) throw new UsersError('USERS_NOT_FOUND', `No user with id ${id}`);
      return sendPage(reply, renderEditPage(user, { name, pro }));
    },
  );
  allowOnly(app, '/edit', ['GET']);
}
