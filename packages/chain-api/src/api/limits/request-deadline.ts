import { setMaxListeners } from 'node:events';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RequestLimits } from '../../config/request-limits-config.js';
import { type ApiError, renderError } from '../errors.js';
import { DeadlineQueue } from './deadline-queue.js';
import { KeyedLimiter } from './keyed-limiter.js';
import {
  clientClosed,
  isRequestTimeout,
  type RequestScope,
  requestTimedOut,
} from './request-scope.js';

/** How long after the deadline a handler that did not notice it is answered for (ms). */
const GRACE_MS = 250;

/**
 * A request's scope. Its AbortController is made when something first asks for the signal (a
 * statement, a node call, a wait for a slot): an answer served from the response cache never
 * does, and building an EventTarget per request was a measurable share of such an answer.
 */
class DeadlineScope implements RequestScope {
  nodeReads = 0;
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  #exchange: { request: FastifyRequest; reply: FastifyReply } | undefined;
  #key: string | undefined;

  constructor(
    request: FastifyRequest,
    reply: FastifyReply,
    readonly limits: RequestLimits,
    readonly dbSlots: KeyedLimiter,
    readonly nodeSlots: KeyedLimiter,
    readonly requestSlots: KeyedLimiter,
  ) {
    this.#exchange = { request, reply };
  }

  /** The request and its reply, until it ended. */
  get exchange(): { request: FastifyRequest; reply: FastifyReply } | undefined {
    return this.#exchange;
  }

  /**
   * The request ended: let go of it. A request's bound context (which holds its scope) may live
   * on in what the answer left behind (a cached answer re-rendered when a price moves), and must
   * not keep the request, its socket and reply alive with it.
   */
  end(): void {
    if (!this.#exchange) return;
    this.#key = this.key();
    this.#exchange = undefined;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      // Each statement and node call of the request listens on it (a page reads hundreds).
      setMaxListeners(0, this.#controller.signal);
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  key(): string {
    const request = this.#exchange?.request;
    if (!request) return this.#key ?? 'ended';
    return request.apiKey ? `key:${request.apiKey.id}` : `ip:${request.ip}`;
  }

  /** Why the request was cancelled (undefined while it runs). */
  get reason(): unknown {
    return this.#aborted ? this.#reason : undefined;
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

// On the request itself, not in a WeakMap: a minor GC scavenges a WeakMap's values as strong, and
// this value points back at its key, so finished requests (with their reply, socket and logger)
// were promoted to the old generation and freed only by a full collection.
const scopeSlot = Symbol('deadline scope');
type ScopedRequest = FastifyRequest & { [scopeSlot]?: DeadlineScope | null };

function scopeOf(request: FastifyRequest): DeadlineScope | undefined {
  return (request as ScopedRequest)[scopeSlot] ?? undefined;
}

/**
 * The scope of `request` (its deadline's signal, limits and per-key slots); undefined when the
 * server has no request deadline (a route tested on its own).
 *
 * @example
 * const db = scopedReadDb(ctx.db, requestScope(request));
 */
export function requestScope(request: FastifyRequest): RequestScope | undefined {
  return scopeOf(request);
}

/**
 * One deadline per request (REQUEST_TIMEOUT_MS): each request gets a `RequestScope` (see
 * `requestScope`) whose signal aborts at the deadline (or when the client goes away), which
 * cancels the database statements and node calls made through it. The handler then fails with
 * the 503 of `requestTimedOut`; one that does not notice within a short grace is answered for.
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
  const deadlines = new DeadlineQueue<DeadlineScope>(limits.timeoutMs, (scope) => {
    const error = requestTimedOut(limits.timeoutMs);
    scope.abort(error);
    const exchange = scope.exchange;
    if (!exchange) return;
    const { request, reply } = exchange;
    const fallback = setTimeout(() => {
      if (reply.sent || reply.raw.headersSent) return;
      request.log.warn({ timeoutMs: limits.timeoutMs }, 'request answered at its deadline');
      const rendered = renderError(error, 'error');
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      void reply.code(503).header('content-type', rendered.contentType).send(rendered.body);
    }, GRACE_MS);
    fallback.unref();
  });
  // Declared, so every request has the slot from the start (one object shape).
  app.decorateRequest(scopeSlot, null);
  app.addHook('onClose', (_instance, done) => {
    deadlines.close();
    done();
  });

  app.addHook('onRequest', (request, reply, done) => {
    const scope = new DeadlineScope(request, reply, limits, dbSlots, nodeSlots, requestSlots);
    (request as ScopedRequest)[scopeSlot] = scope;
    deadlines.add(scope);
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    const scope = scopeOf(request);
    if (scope) {
      deadlines.delete(scope);
      scope.end();
    }
    done();
  });
  // A handler that finished past the deadline (its last step swallowed the cancellation) still
  // answers with the deadline's 503: never a late answer that passes for a normal one.
  app.addHook('onSend', (request, reply, payload, done) => {
    const reason = scopeOf(request)?.reason;
    if (!isRequestTimeout(reason) || reply.statusCode === 503) {
      return done(null, payload);
    }
    const error = reason as ApiError;
    const rendered = renderError(error, 'error');
    reply.removeHeader('etag');
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    reply.code(503).header('content-type', rendered.contentType);
    done(null, rendered.body);
  });
  // The client went away: nothing is waiting for the answer any more.
  app.addHook('onRequestAbort', (request, done) => {
    const scope = scopeOf(request);
    if (scope) {
      deadlines.delete(scope);
      scope.abort(clientClosed());
      scope.end();
    }
    done();
  });
}

/**
 * The error a request failed with: its deadline when the deadline had passed, the client's
 * leaving when the client went away (whatever its cancelled work failed with first).
 */
export function deadlineReason(request: FastifyRequest, error: unknown): unknown {
  return scopeOf(request)?.reason ?? error;
}
