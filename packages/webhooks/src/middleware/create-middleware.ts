import {
  BodyTimeoutError,
  InvalidUrlError,
  MissingHeadersError,
  UnknownRouteError,
  UnsupportedContentTypeError,
  type WebhooksError,
} from '../errors.js';
import { checkDeliveryEventName } from '../event-handler/check-delivery-event-name.js';
import { isSilent, logSafely } from '../log.js';
import { createDeliveryDeadlines } from './delivery-deadlines.js';
import { errorToResponse, toAggregateError } from './error-to-response.js';
import { isJsonContentType } from './is-json-content-type.js';
import { ACCEPT_JSON, jsonError } from './json-response.js';
import { createRequestLimits } from './request-limits.js';
import type {
  AbortBodyRead,
  MiddlewareResponse,
  RequestAdapter,
  ResolvedMiddlewareOptions,
  WebhooksLike,
} from './types.js';

const EVENT_HEADER = 'x-provider-event';
const DELIVERY_HEADER = 'x-provider-delivery';
const SIGNATURE_HEADER = 'x-hub-signature-256';

const OK: MiddlewareResponse = {
  status: 200,
  headers: { 'content-type': 'text/plain', ...ACCEPT_JSON },
  body: 'ok\n',
};
const STILL_PROCESSING: MiddlewareResponse = {
  status: 202,
  headers: { 'content-type': 'text/plain', ...ACCEPT_JSON },
  body: 'still processing\n',
};

/** Routing-level rejections answer `{ error: message }`, as the peer does. */
function errorResponse(error: WebhooksError, headers?: Record<string, string>): MiddlewareResponse {
  return jsonError(error.status, error.message, headers);
}

/** `null`: the request is not for this middleware's path. */
export type MiddlewareOutcome = MiddlewareResponse | null;

/** Handles one request and calls `done` exactly once with the outcome (possibly synchronously). */
export type MiddlewareHandler<TRequest> = (
  request: TRequest,
  done: (outcome: MiddlewareOutcome) => void,
) => void;

type Answer = (response: MiddlewareResponse) => void;

/**
 * The runtime-independent receiver: routing, content type, headers, limits, verification,
 * dispatch and the timeouts, for any request type an adapter can read. Node and Web middleware
 * are thin adapters around it. It works with callbacks rather than promises: a delivery costs
 * one promise (the one `verifyAndReceive` returns) and no timer of its own (each deadline list
 * runs on one shared timer).
 *
 * | condition | status |
 * |---|---|
 * | other path | `null` (caller decides) |
 * | URL that cannot be parsed | 422 |
 * | not POST | 404 |
 * | content type not `application/json` | 415 |
 * | missing event/delivery/signature header | 400 |
 * | event name `*`, `error` or not an event name's form | 400 |
 * | over `maxConcurrentRequests` | 429 + `Retry-After` |
 * | body would pass `maxConcurrentBodyBytes` | 503 + `Retry-After` |
 * | body over `maxPayloadBytes` | 413 |
 * | body not in after `bodyTimeout` | 408 |
 * | body already consumed, no raw bytes | 500 |
 * | empty body or bad (or empty) signature, invalid JSON | 400 |
 * | handler failed | error's `status` or 500 |
 * | handlers done | 200 |
 * | handlers still running after `timeout` | 202 |
 *
 * Failures from `verifyAndReceive` go to `log.error` as the `AggregateError` itself; a logger
 * that throws cannot stop the answer.
 *
 * @example
 * ```ts
 * const handle = createMiddleware(myAdapter, webhooks, resolveMiddlewareOptions(webhooks));
 * handle(request, (outcome) => send(outcome));
 * ```
 */
export function createMiddleware<TRequest>(
  adapter: RequestAdapter<TRequest>,
  webhooks: WebhooksLike,
  options: ResolvedMiddlewareOptions,
): MiddlewareHandler<TRequest> {
  const { path, log, timeout, bodyTimeout } = options;
  const deadlines = createDeliveryDeadlines(timeout);
  const bodyDeadlines = createDeliveryDeadlines(bodyTimeout);
  const limits = createRequestLimits(options);

  // Whatever goes wrong answers 500; a thrown error would crash a plain `createServer`
  // listener. `done` itself must not throw (the adapters catch inside it), so it is never
  // called twice.
  return function handleWebhookRequest(request, done) {
    let outcome: MiddlewareOutcome | undefined;
    try {
      outcome = handle(request, done);
    } catch (error) {
      outcome = rejected(error, '(no event)', '(no id)');
    }
    if (outcome !== undefined) done(outcome);
  };

  /**
   * A rejection by the middleware itself (not by verification or handlers): a one-line warning
   * for 4xx; 5xx go to `log.error` as an `AggregateError`, like every `log.error` call here.
   */
  function rejected(error: unknown, name: string, id: string): MiddlewareResponse {
    const response = errorToResponse(error);
    if (response.status >= 500) {
      logSafely(log, 'error', toAggregateError(error));
    } else {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      logSafely(log, 'warn', `${name} delivery ${id} rejected with ${response.status}: ${message}`);
    }
    return response;
  }

  /** An outcome known at once, or `undefined` when `done` will be called later. */
  function handle(
    request: TRequest,
    done: (outcome: MiddlewareOutcome) => void,
  ): MiddlewareOutcome | undefined {
    const pathname = adapter.getPathname(request);
    if (pathname === null) {
      return errorResponse(new InvalidUrlError({ details: adapter.getUrl(request) }));
    }
    if (pathname !== path) return null;

    const method = adapter.getMethod(request);
    if (method !== 'POST') {
      return errorResponse(new UnknownRouteError({ details: `${method} ${pathname}` }));
    }

    const contentType = adapter.getHeader(request, 'content-type');
    if (!isJsonContentType(contentType)) {
      return errorResponse(new UnsupportedContentTypeError(), ACCEPT_JSON);
    }

    // Only absent headers are missing, in the peer's order; a present but empty signature is
    // one that does not match (400 and onError), as for the peer.
    const name = adapter.getHeader(request, EVENT_HEADER);
    const signature = adapter.getHeader(request, SIGNATURE_HEADER);
    const id = adapter.getHeader(request, DELIVERY_HEADER);
    if (name === undefined || signature === undefined || id === undefined) {
      const missing: string[] = [];
      if (name === undefined) missing.push(EVENT_HEADER);
      if (signature === undefined) missing.push(SIGNATURE_HEADER);
      if (id === undefined) missing.push(DELIVERY_HEADER);
      return errorResponse(new MissingHeadersError(missing), ACCEPT_JSON);
    }
    // Refused before the body is read: no handler may see `error`, `*` or a malformed name.
    const badName = checkDeliveryEventName(name);
    if (badName !== undefined) return errorResponse(badName);

    const admission = limits.admit();
    if (admission instanceof Error) {
      const response = rejected(admission, name, id);
      // The body is not read: close the connection instead of draining it.
      response.closeConnection = true;
      return response;
    }

    let answered = false;
    const answer: Answer = (response) => {
      if (answered) return;
      answered = true;
      admission.release();
      done(response);
    };
    let abortRead: AbortBodyRead | undefined;
    let bodyIn = false;
    const bodyDeadline = bodyDeadlines.add(() => {
      if (bodyIn) return;
      abortRead?.();
      const response = rejected(new BodyTimeoutError(bodyTimeout), name, id);
      response.closeConnection = true;
      answer(response);
    });
    try {
      abortRead = adapter.readBody(request, admission, (error, payload) => {
        bodyIn = true;
        bodyDeadlines.settle(bodyDeadline);
        if (answered) return;
        let response: MiddlewareResponse;
        try {
          if (error !== undefined && error !== null) {
            response = rejected(error, name, id);
            // Stop a large or broken upload instead of draining it.
            response.closeConnection = true;
          } else {
            // An empty body goes on to verification, which refuses it as a signature
            // mismatch (400 and onError), as the peer does.
            receiveDelivery(id, name, payload ?? '', signature, answer);
            return;
          }
        } catch (unexpected) {
          response = rejected(unexpected, name, id);
        }
        answer(response);
      });
    } catch (error) {
      bodyDeadlines.settle(bodyDeadline);
      answer(rejected(error, name, id));
    }
    return undefined;
  }

  function receiveDelivery(
    id: string,
    name: string,
    payload: Uint8Array | string,
    signature: string,
    answer: Answer,
  ): void {
    if (!isSilent(log, 'debug')) logSafely(log, 'debug', `${name} event received (id: ${id})`);
    // The timeout starts once the body is in: a slow upload must not earn a 202 before the
    // signature is checked.
    const pending = deadlines.add(() => {
      if (!isSilent(log, 'debug')) {
        logSafely(
          log,
          'debug',
          `${name} delivery ${id}: handlers still running after ${timeout} ms, answered 202`,
        );
      }
      answer(STILL_PROCESSING);
    });
    const failed = (error: unknown): void => {
      deadlines.settle(pending);
      // After a 202 the response is gone; the failure is still logged. `log.error` gets the
      // AggregateError itself, as `@octokit/webhooks` passes it.
      const aggregate = toAggregateError(error);
      logSafely(log, 'error', aggregate);
      answer(errorToResponse(aggregate));
    };
    let processing: Promise<void>;
    try {
      processing = webhooks.verifyAndReceive({ id, name, payload, signature });
    } catch (error) {
      processing = Promise.reject(error);
    }
    try {
      processing.then(() => {
        deadlines.settle(pending);
        answer(OK);
      }, failed);
    } catch (error) {
      // `verifyAndReceive` returned something that is not a promise.
      failed(error);
    }
  }
}
