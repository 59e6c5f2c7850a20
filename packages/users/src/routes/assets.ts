import { createHash } from 'node:crypto';
import { prefersHtml } from '@sluice/html-kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { APP_SCRIPT } from '../html/app-script.js';
import { APP_STYLE, FAVICON_SVG } from '../html/app-style.js';
import { EXAMPLE_REQUESTS, renderLandingPage } from '../html/info-pages.js';
import { sendPage } from './send-page.js';

interface Asset {
  type: string;
  body: string;
  etag: string;
}

function asset(type: string, body: string): Asset {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { type, body, etag };
}

/** The UI's script, stylesheet and icon, plus the `GET /` landing page. */
export async function assetRoutes(app: FastifyInstance): Promise<void> {
  const assets: Record<string, Asset> = {
    '/assets/app.js': asset('text/javascript; charset=utf-8', APP_SCRIPT),
    '/assets/app.css': asset('text/css; charset=utf-8', APP_STYLE),
    '/favicon.svg': asset('image/svg+xml', FAVICON_SVG),
  };
  for (const [url, a] of Object.entries(assets)) {
    app.get(
      url,
      { schema: { hide: true }, logLevel: 'warn' },
      (request: FastifyRequest, reply: FastifyReply) => {
        reply.header('etag', a.etag).header('cache-control', 'public, max-age=300');
        if (request.headers['if-none-match'] === a.etag) return reply.code(304).send();
        return reply.type(a.type).header('x-content-type-options', 'nosniff').send(a.body);
      },
    );
  }
  // Browsers ask for /favicon.ico on their own; answer it here rather than in /:id.
  app.get('/favicon.ico', { schema: { hide: true }, logLevel: 'warn' }, (_request, reply) =>
    reply.code(204).send(),
  );
  // The landing page: HTML for browsers, JSON otherwise.
  app.get('/', { schema: { hide: true } }, (request, reply) => {
    reply.header('vary', 'accept');
    if (prefersHtml(request.headers.accept)) {
      return sendPage(reply, renderLandingPage(`${request.protocol}://${request.host}`));
    }
    return reply.header('cache-control', 'no-cache').send({
      name: 'Sluice users',
      description: 'User-record service: JSON API and HTML UI over the same store.',
      links: { ui: '/users', docs: '/docs', openapi: '/openapi.json', health: '/health' },
      examples: EXAMPLE_REQUESTS.map((e) => ({
        title: e.title,
        curl: e.curl.replaceAll('ORIGIN', `${request.protocol}://${request.host}`),
      })),
    });
  });
}
