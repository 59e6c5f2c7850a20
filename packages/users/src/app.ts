import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { isDatabaseUnavailable } from '@sluice/db';
import { prefersHtml } from '@sluice/html-kit';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { toUsersError, UsersError } from './errors.js';
import { renderErrorPage, renderNotFoundPage } from './html/info-pages.js';
import { bodyDeadline } from './http/body-deadline.js';
import { parseJsonBody } from './http/parse-json-body.js';
import { requestOriginGuard } from './http/request-origin-guard.js';
import { addRoutes } from './routes/add.js';
import { assetRoutes } from './routes/assets.js';
import { byIdRoutes } from './routes/by-id.js';
import { editRoutes } from './routes/edit.js';
import { healthRoutes } from './routes/health.js';
import type { RouteContext } from './routes/route-context.js';
import { sendPage } from './routes/send-page.js';
import { usersRoutes } from './routes/users.js';
import type { UserStore } from './store/user-store.js';

export interface AppOptions {
  store: UserStore;
  /** Reported by /health, e.g. 'postgres' or 'pglite'. */
  databaseKind: string;
  /** Fastify/pino logger options; `false` disables logging (tests). */
  logger?: FastifyServerOptions['logger'];
  /** `{ key, cert }` to serve HTTPS. */
  https?: { key: Buffer | string; cert: Buffer | string } | undefined;
  /** Largest accepted request body in bytes (default 16 KiB). */
  bodyLimit?: number;
  /** Longest wait for a request body after its headers, in ms (default 5000); then 408. */
  bodyTimeoutMs?: number;
  /**
   * Hostnames the `Host` header may name (no port), or `'*'` for any. Default: localhost names
   * (`loadConfig` adds the listen address and `ALLOWED_HOSTS`).
   */
  allowedHosts?: readonly string[] | '*';
  /** Other origins trusted to send state-changing requests (default none). */
  allowedOrigins?: readonly string[];
  /** Longest `/health` waits for the database before answering 503, in ms (default 1500). */
  healthTimeoutMs?: number;
}

/**
 * Builds the HTTP application without listening, so tests and the CLI share it.
 *
 * @example
 * const app = await buildApp({ store, databaseKind: db.kind });
 * await app.listen({ port: 0 });
 */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? { level: 'info' },
    bodyLimit: options.bodyLimit ?? 16 * 1024,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    ...(options.https ? { https: options.https } : {}),
  }) as unknown as FastifyInstance;

  // Schemas document the API and shape responses; user-input.ts validates requests with
  // per-field messages, so Fastify's own body/query validation is switched off.
  app.setValidatorCompiler(() => () => true);

  // Only JSON and url-encoded forms are accepted: anything else (text/plain included) is 415.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  await app.register(formbody);
  bodyDeadline(app, options.bodyTimeoutMs ?? 5_000);

  // Error bodies may echo input; never let a browser sniff them into something else.
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
  });

  requestOriginGuard(app, {
    allowedHosts: options.allowedHosts ?? ['localhost', '127.0.0.1', '::1'],
    allowedOrigins: options.allowedOrigins ?? [],
  });

  app.setErrorHandler((err, request, reply) => {
    let error: UsersError;
    // Lost, restarting, frozen or overloaded database: unavailable, not the request's fault.
    if (isDatabaseUnavailable(err)) {
      error = new UsersError('USERS_DATABASE_UNAVAILABLE');
    } else {
      error = toUsersError(err);
    }
    if (error.statusCode >= 500) request.log.error({ err }, 'request failed');
    else request.log.info({ code: error.code, message: error.message }, 'client error');
    if (error.headers) reply.headers(error.headers);
    if (request.method === 'GET' && prefersHtml(request.headers.accept)) {
      // A browser gets a page. A path that is not a number (`/nonexistent`) is a missing page
      // to it, not a malformed id.
      if (error.code === 'USERS_INVALID_ID' && request.routeOptions.url === '/:id') {
        const path = request.url.split('?')[0] ?? request.url;
        return sendPage(
          reply,
          renderNotFoundPage(path.length > 100 ? `${path.slice(0, 100)}…` : path),
          404,
        );
      }
      return sendPage(reply, renderErrorPage(error.statusCode, error.message), error.statusCode);
    }
    return reply.code(error.statusCode).send(error.toBody());
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    if (request.method === 'GET' && prefersHtml(request.headers.accept)) {
      return sendPage(
        reply,
        renderNotFoundPage(path.length > 100 ? `${path.slice(0, 100)}…` : path),
        404,
      );
    }
    const error = new UsersError(
      'USERS_ROUTE_NOT_FOUND',
      `Route ${request.method} ${path.length > 100 ? `${path.slice(0, 100)}…` : path} not found`,
    );
    return reply.code(404).send(error.toBody());
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sluice users',
        version: '0.1.0',
        description:
          'User-record CRUD service. Errors are JSON {error, message, statusCode, code, fields?}.',
      },
      tags: [
        { name: 'users', description: 'The JSON API' },
        { name: 'pages', description: 'Server-rendered HTML pages' },
        { name: 'operations' },
      ],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  const context: RouteContext = {
    store: options.store,
    databaseKind: options.databaseKind,
    healthTimeoutMs: options.healthTimeoutMs ?? 1_500,
  };
  await app.register(assetRoutes);
  await app.register(healthRoutes, context);
  await app.register(usersRoutes, context);
  await app.register(addRoutes, context);
  await app.register(editRoutes, context);
  await app.register(byIdRoutes, context);
  return app;
}
