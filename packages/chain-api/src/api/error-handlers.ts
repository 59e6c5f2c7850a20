import { isDatabaseUnavailable } from '@sluice/db';
import { escapeHtml, prefersHtml } from '@sluice/html-kit';
import type { FastifyInstance } from 'fastify';
import { ApiError, type ErrorFormat, renderError } from './errors.js';
import { sendHtmlPage } from './html/page.js';
import { deadlineReason } from './limits/request-deadline.js';

/**
 * How every failure leaves the server: API errors with their status and headers, an unavailable
 * database as a retryable 503, client errors as themselves, anything else as a logged 500 that
 * shows no detail; unknown routes as 404 (an HTML page for browsers).
 *
 * @example
 * registerErrorHandlers(app);
 */
export function registerErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((thrown, request, reply) => {
    // Past the deadline, whatever failed first (a cancelled statement, an aborted call) was it.
    const error = deadlineReason(request, thrown) as typeof thrown;
    const format: ErrorFormat = request.routeOptions.config?.errorFormat ?? 'error';
    let status: number;
    let rendered: { contentType: string; body: string };
    if (error instanceof ApiError && error.code === 'CLIENT_CLOSED') {
      // Not a failure of the server: nothing is waiting for this answer.
      request.log.info('client closed the connection before the answer; its work was cancelled');
      return reply.code(error.statusCode).send();
    }
    if (error instanceof ApiError) {
      status = error.statusCode;
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      rendered = renderError(error, format);
    } else {
      const code = (error as { statusCode?: unknown }).statusCode;
      if (isDatabaseUnavailable(error)) {
        // Lost, restarting, frozen or saturated database: retryable, not an internal error.
        status = 503;
        request.log.warn({ err: (error as Error).message }, 'database unavailable');
        reply.header('retry-after', '5');
        rendered = renderError(new ApiError('DATABASE_UNAVAILABLE'), format);
      } else if (typeof code === 'number' && code >= 400 && code < 500) {
        status = code;
        rendered = renderError({ message: (error as Error).message }, format);
      } else {
        status = 500;
        request.log.error({ err: error }, 'request failed');
        rendered = renderError(new ApiError('INTERNAL'), format);
      }
    }
    if (status >= 400 && status < 500 && status !== 401 && status !== 402 && status !== 429) {
      request.log.info({ status, reason: rendered.body.slice(0, 200) }, 'request rejected');
    }
    return reply.code(status).header('content-type', rendered.contentType).send(rendered.body);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    if (request.method === 'GET' && prefersHtml(request.headers.accept)) {
      const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
      return sendHtmlPage(
        reply,
        404,
        'Not found',
        `<h1>Not found</h1>\n<p>Nothing at <code>${escapeHtml(shown)}</code>.</p>\n<p><a href="/">Home</a> · <a href="/docs">API docs</a> · <a href="/health">Health</a></p>`,
      );
    }
    const rendered = renderError(
      new ApiError('NOT_FOUND', `Not found: ${request.method} ${request.url.split('?')[0]}`),
      'error',
    );
    return reply.code(404).header('content-type', rendered.contentType).send(rendered.body);
  });
}
