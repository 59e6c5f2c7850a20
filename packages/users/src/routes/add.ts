import { prefersHtml } from '@sluice/html-kit';
import type { FastifyInstance } from 'fastify';
import { UsersError } from '../errors.js';
import { renderAddPage } from '../html/add-page.js';
import { parseNewUser } from '../user-input.js';
import { allowOnly } from './method-not-allowed.js';
import type { RouteContext } from './route-context.js';
import { errors, newUserBodySchema, userSchema } from './schemas.js';
import { sendPage } from './send-page.js';

/** `POST /add` creates a user; `GET /add` is the add form. */
export async function addRoutes(app: FastifyInstance, { store }: RouteContext): Promise<void> {
  app.post(
    '/add',
    {
      schema: {
        summary: 'Create a user',
        description:
          'JSON or application/x-www-form-urlencoded. 201 with the record and a Location header. ' +
          'A plain HTML form post from a browser (Accept: text/html) gets 303 to /users instead.',
        tags: ['users'],
        body: newUserBodySchema,
        response: {
          201: userSchema,
          303: { type: 'null', description: 'Browser form post: redirect to /users.' },
          ...errors(400, 409, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const input = parseNewUser(request.body);
      const user = await store.create(input);
      if (!user) {
        throw new UsersError('USERS_DUPLICATE_ID', `A user with id ${input.id} already exists`, {
          fields: { id: `${input.id} is already taken` },
        });
      }
      const isForm = request.headers['content-type']?.startsWith(
        'application/x-www-form-urlencoded',
      );
      if (isForm && prefersHtml(request.headers.accept)) {
        // Post/Redirect/Get for browsers without JavaScript.
        return reply.code(303).header('location', '/users').send();
      }
      return reply.code(201).header('location', `/${user.id}`).send(user);
    },
  );
  app.get(
    '/add',
    { schema: { summary: 'The add form (HTML)', tags: ['pages'] } },
    async (_request, reply) => sendPage(reply, renderAddPage()),
  );
  allowOnly(app, '/add', ['GET', 'POST']);
}
