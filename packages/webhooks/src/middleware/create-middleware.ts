import {
  EmptyBodyError,
  InvalidUrlError,
  MissingHeadersError,
  UnknownRouteError,
  UnsupportedContentTypeError,
  type WebhooksError,
} from '../errors.js';
import { isSilent } from '../log.js';
import { createDeliveryDeadlines } from './delivery-deadlines.js';
import { errorToResponse } from './error-to-response.js';
import { isJsonContentType } from './is-json-content-type.js';
import { jsonError } from './json-response.js';
import type {
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
  headers: { 'content-type': 'text/plain; charset=utf-8' },
  body: 'ok\n',
};
const STILL_PROCESSING: MiddlewareResponse = {
  status: 202,
  headers: { 'content-type': 'text/plain; charset=utf-8' },
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

const NO_DELIVERY = { id: undefined, name: undefined };

/**
 * The runtime-independent receiver: routing, content type, headers, size limit, verification,
 * dispatch and the timeout, for any request type an adapter can read. Node and Web middleware
 * are thin adapters around it. It works with callbacks rather than promises: a delivery costs
 * one promise (the one `verifyAndReceive` returns) and no timer of its own.
 *
 * | condition | status |
 * |---|---|
 * | other path | `null` (caller decides) |
 * | not POST | 404 |
 * | content type not `application/json` | 415 |
 * | missing event/delivery/signature header | 400 |
 * | body over `maxPayloadBytes` | 413 |
 * | body already consumed, no raw bytes | 500 |
 * | empty body, bad signature, invalid JSON | 400 |
 * | handler failed | error's `status` or 500 |
 * | handlers done | 200 |
 * | handlers still running after `timeout` | 202 |
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
  const { path, log, timeout, maxPayloadBytes } = options;
  const deadlines = createDeliveryDeadlines(timeout);

  // Whatever goes wrong answers 500; a thrown error would crash a plain `createServer`
  // listener. `done` itself must not throw (the adapters catch inside it), so it is never
  // called twice.
  return function handleWebhookRequest(request, done) {
    let outcome: MiddlewareOutcome | undefined;
    try {
      outcome = handle(request, done);
    } catch (error) {
      outcome = errorToResponse(error, log, NO_DELIVERY);
    }
    if (outcome !== undefined) done(outcome);
  };

  /** An outcome known at once, or `undefined` when `done` will be called later. */
  function handle(
    request: TRequest,
    done: (outcome: MiddlewareOutcome) => void,
  ): MiddlewareOutcome | undefined {
    const pathname = adapter.getPathname(request);
    if (pathname === null) return errorResponse(new InvalidUrlError());
    if (pathname !== path) return null;

    const method = adapter.getMethod(request);
    if (method !== 'POST') {
      return errorResponse(new UnknownRouteError({ details: `${method} ${pathname}` }));
    }

    const contentType = adapter.getHeader(request, 'content-type');
    if (!isJsonContentType(contentType)) {
      const error = new UnsupportedContentTypeError({
        details:
          contentType === undefined
            ? 'the request has none'
            : /^\s*application\/x-www-form-urlencoded/i.test(contentType)
              ? 'form-encoded deliveries are not supported; set the webhook content type to application/json at the provider'
              : undefined,
      });
      return errorResponse(error, { accept: 'application/json' });
    }

    const name = adapter.getHeader(request, EVENT_HEADER);
    const id = adapter.getHeader(request, DELIVERY_HEADER);
    const signature = adapter.getHeader(request, SIGNATURE_HEADER);
    if (!name || !id || !signature) {
      const missing: string[] = [];
      if (!name) missing.push(EVENT_HEADER);
      if (!id) missing.push(DELIVERY_HEADER);
      if (!signature) missing.push(SIGNATURE_HEADER);
      return errorResponse(new MissingHeadersError(missing));
    }

    adapter.readBody(request, maxPayloadBytes, (error, payload) => {
      let outcome: MiddlewareResponse;
      try {
        if (error !== undefined && error !== null) {
          outcome = errorToResponse(error, log, { id, name });
          // Stop a large or broken upload instead of draining it.
          outcome.closeConnection = true;
        } else if (payload === undefined || payload.length === 0) {
          const empty = new EmptyBodyError();
          outcome = jsonError(empty.status, `${empty.name}: ${empty.message}`);
        } else {
          receiveDelivery(id, name, payload, signature, done);
          return;
        }
      } catch (unexpected) {
        outcome = errorToResponse(unexpected, log, NO_DELIVERY);
      }
      done(outcome);
    });
    return undefined;
  }

  function receiveDelivery(
    id: string,
    name: string,
    payload: Uint8Array | string,
    signature: string,
    done: (outcome: MiddlewareOutcome) => void,
  ): void {
    if (!isSilent(log.debug)) log.debug(`${name} event received (id: ${id})`);
    let answered = false;
    const answer = (response: MiddlewareResponse): void => {
      if (answered) return;
      answered = true;
      done(response);
    };
    // The timeout starts once the body is in: a slow upload must not earn a 202 before the
    // signature is checked.
    const pending = deadlines.add(() => {
      if (!isSilent(log.debug)) {
        log.debug(
          `${name} delivery ${id}: handlers still running after ${timeout} ms, answered 202`,
        );
      }
      answer(STILL_PROCESSING);
    });
    let processing: Promise<void>;
    try {
      processing = webhooks.verifyAndReceive({ id, name, payload, signature });
    } catch (error) {
      processing = Promise.reject(error);
    }
    try {
      processing.then(
        () => {
          deadlines.settle(pending);
          answer(OK);
        },
        (error: unknown) => {
          deadlines.settle(pending);
          // After a 202 the response is gone; the failure is still logged.
          const response = errorToResponse(error, log, { id, name });
          answer(response);
        },
      );
    } catch (error) {
      // `verifyAndReceive` returned something that is not a promise.
      deadlines.settle(pending);
      answer(errorToResponse(error, log, NO_DELIVERY));
    }
  }
}
