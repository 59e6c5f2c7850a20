import {
  EmptyBodyError,
  InvalidUrlError,
  MissingHeadersError,
  UnknownRouteError,
  UnsupportedContentTypeError,
  type WebhooksError,
} from '../errors.js';
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

/**
 * The runtime-independent receiver: routing, content type, headers, size limit, verification,
 * dispatch and the timeout, for any request type an adapter can read. Node and Web middleware
 * are thin adapters around it.
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
 * const outcome = await handle(request);
 * ```
 */
export function createMiddleware<TRequest>(
  adapter: RequestAdapter<TRequest>,
  webhooks: WebhooksLike,
  options: ResolvedMiddlewareOptions,
): (request: TRequest) => Promise<MiddlewareOutcome> {
  const { path, log, timeout, maxPayloadBytes } = options;

  // Whatever goes wrong answers 500; a rejected middleware promise would crash a plain
  // `createServer` listener with an unhandled rejection.
  return function handleWebhookRequest(request: TRequest): Promise<MiddlewareOutcome> {
    return handle(request).catch((error: unknown) =>
      errorToResponse(error, log, { id: undefined, name: undefined }),
    );
  };

  async function handle(request: TRequest): Promise<MiddlewareOutcome> {
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

    let payload: Uint8Array | string;
    try {
      payload = await adapter.readBody(request, maxPayloadBytes);
    } catch (error) {
      const response = errorToResponse(error, log, { id, name });
      // Stop a large or broken upload instead of draining it.
      response.closeConnection = true;
      return response;
    }
    if (payload.length === 0) {
      const error = new EmptyBodyError();
      return jsonError(error.status, `${error.name}: ${error.message}`);
    }
    log.debug(`${name} event received (id: ${id})`);

    // The timer starts once the body is in: a slow upload must not earn a 202 before the
    // signature is checked.
    return new Promise<MiddlewareResponse>((resolve) => {
      const timer = setTimeout(() => {
        log.debug(
          `${name} delivery ${id}: handlers still running after ${timeout} ms, answered 202`,
        );
        resolve(STILL_PROCESSING);
      }, timeout);
      let processing: Promise<void>;
      try {
        processing = webhooks.verifyAndReceive({ id, name, payload, signature });
      } catch (error) {
        processing = Promise.reject(error);
      }
      processing.then(
        () => {
          clearTimeout(timer);
          resolve(OK);
        },
        (error: unknown) => {
          clearTimeout(timer);
          // After a 202 the response is gone; the failure is still logged.
          resolve(errorToResponse(error, log, { id, name }));
        },
      );
    });
  }
}
