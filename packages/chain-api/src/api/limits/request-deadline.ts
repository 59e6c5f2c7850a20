import { setMaxListeners } from 'node:events';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RequestLimits } from '../../config/request-limits-config.js';
import { type ApiError, renderError } from '../errors.js';
import { KeyedLimiter } from './keyed-limiter.js';
import {
  isRequestTimeout,
  type RequestScope,
  requestTimedOut,
  runInScope,
} from './request-scope.js';

/** How long after the deadline a handler that did not notice it is answered for (ms). */
const GRACE_MS = 250;

const controllers = new WeakMap<FastifyRequest, AbortController>();

/**
 * One deadline per request (REQUEST_TIMEOUT_MS): everything the request starts runs in its
 * `RequestScope`, whose signal aborts at the deadline (or when the client goes away), which
 * cancels its database statements and node calls. The handler then fails with the 503 of
 * `requestTimedOut`; one that does not notice within a short grace is answered for.
 *
 * @example
 * registerRequestDeadline(app, limits);
 */
export function registerRequestDeadline(app: FastifyInstance, limits: RequestLimits): void {
  // A key counts as active for a second after its last request: a client between two requests
  // is still there.
  const requestSlots = new KeyedLimiter(limits.keyRequestConcurrency, {
    borrowWhenAlone: true,
    rememberMs: 1_000,
  });
  // A key alone may use the whole read pool; once another key has a request in flight, its
  // further statements wait for its own few, so the database's cores stay open to the other.
  const dbSlots = new KeyedLimiter(limits.keyDbConcurrency, {
    borrowWhenAlone: true,
    activeIn: requestSlots,
  });
  const nodeSlots = new KeyedLimiter(limits.keyNodeConcurrency);
  const timers = new WeakMap<FastifyRequest, NodeJS.Timeout>();
  const scopes = new WeakMap<FastifyRequest, RequestScope>();

  app.addHook('onRequest', (request, reply, done) => {
    const controller = new AbortController();
    // Each statement and node call of the request listens on it (a page reads hundreds).
    setMaxListeners(0, controller.signal);
    controllers.set(request, controller);
    const timer = setTimeout(() => {
      const error = requestTimedOut(limits.timeoutMs);
      controller.abort(error);
      const fallback = setTimeout(() => {
        if (reply.sent || reply.raw.headersSent) return;
        request.log.warn({ timeoutMs: limits.timeoutMs }, 'request answered at its deadline');
        const rendered = renderError(error, 'error');
        for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
        void reply.code(503).header('content-type', rendered.contentType).send(rendered.body);
      }, GRACE_MS);
      fallback.unref();
    }, limits.timeoutMs);
    timer.unref();
    timers.set(request, timer);
    const scope: RequestScope = {
      signal: controller.signal,
      limits,
      key: () => (request.apiKey ? `key:${request.apiKey.id}` : `ip:${request.ip}`),
      dbSlots,
      nodeSlots,
      requestSlots,
      nodeReads: 0,
    };
    scopes.set(request, scope);
    runInScope(scope, done);
  });
  // Again before the handler: a request body is read on socket events, outside the scope.
  app.addHook('preHandler', (request, _reply, done) => {
    const scope = scopes.get(request);
    if (scope) runInScope(scope, done);
    else done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    clearTimeout(timers.get(request));
    done();
  });
  // A handler that finished past the deadline (its last step swallowed the cancellation) still
  // answers with the deadline's 503: never a late answer that passes for a normal one.
  app.addHook('onSend', async (request, reply, payload) => {
    const signal = controllers.get(request)?.signal;
    if (!signal?.aborted || !isRequestTimeout(signal.reason) || reply.statusCode === 503) {
      return payload;
    }
    const error = signal.reason as ApiError;
    const rendered = renderError(error, 'error');
    reply.removeHeader('etag');
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    reply.code(503).header('content-type', rendered.contentType);
    return rendered.body;
  });
  // The client went away: nothing is waiting for the answer any more.
  app.addHook('onRequestAbort', (request, done) => {
    clearTimeout(timers.get(request));
    controllers.get(request)?.abort(new Error('client closed the connection'));
    done();
  });
}

/** The error a request failed with, as its deadline when the deadline had passed. */
export function deadlineReason(request: FastifyRequest, error: unknown): unknown {
  const signal = controllers.get(request)?.signal;
  return signal?.aborted && isRequestTimeout(signal.reason) ? signal.reason : error;
}
