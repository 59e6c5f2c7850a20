import { prefersHtml } from '@sluice/html-kit';
import type { FastifyInstance } from 'fastify';
import { renderListPage } from '../html/list-page.js';
import { type Page, parsePage } from '../user-input.js';
import { allowOnly } from './method-not-allowed.js';
import type { RouteContext } from './route-context.js';
import { errors, pageQuerySchema, userSchema } from './schemas.js';
import { sendPage } from './send-page.js';

function linkHeader(page: Page, total: number): string | undefined {
  const links: string[] = [];
  const at = (offset: number, rel: string) =>
    links.push(`</users?limit=${page.limit}&offset=${offset}>; rel="${rel}"`);
  if (page.offset + page.limit < total) at(page.offset + page.limit, 'next');
  if (page.offset > 0) at(Math.max(0, page.offset - page.limit), 'prev');
  if (links.length === 0) return undefined;
  at(0, 'first');
  at(Math.max(0, Math.floor((total - 1) / page.limit) * page.limit), 'last');
  return links.join(', ');
}

/** `GET /users`: a JSON page of users ordered by id, or the HTML list for browsers. */
export async function usersRoutes(app: FastifyInstance, { store }: RouteContext): Promise<void> {
  app.get(
    '/users',
    {
      schema: {
        summary: 'List users',
        description:
          'Users ordered by id. JSON unless the Accept header prefers text/html (then the HTML list). ' +
          'Headers: X-Total-Count (all users), Link (next/prev/first/last pages), ETag ' +
          '(If-None-Match gives 304 while the data is unchanged).',
        tags: ['users'],
        querystring: pageQuerySchema,
        response: {
          200: { type: 'array', items: userSchema },
          304: { type: 'null', description: 'Not modified (If-None-Match).' },
          ...errors(400),
        },
      },
    },
    async (request, reply) => {
      const page = parsePage(request.query as Record<string, unknown>);
      reply.header('vary', 'accept');
      if (prefersHtml(request.headers.accept)) {
        const { total, users } = await store.list(page);
        return sendPage(reply, renderListPage(users, total, page));
      }
      const { total, json, version } = await store.listJson(page);
      const etag = `"v${version}-${page.limit}-${page.offset}"`;
      reply.header('etag', etag).header('cache-control', 'no-cache');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      reply.header('x-total-count', total);
      const link = linkHeader(page, total);
      if (link) reply.header('link', link);
      // Already serialized by the database: sent as is.
      return reply.type('application/json; charset=utf-8').send(json);
    },
  );
  allowOnly(app, '/users', ['GET']);
}
