// One place for every error the toolkit raises: a stable code, the HTTP status the middleware
// answers with, and a short message. Classes add `details` (what exactly was wrong) and keep
// `instanceof` checks possible. Messages never include a secret or a signature.

export const errorCatalogue = {
  SLUICE_WEBHOOKS_INVALID_ARGUMENT: { status: 500, message: 'Invalid argument' },
  SLUICE_WEBHOOKS_INVALID_EVENT_NAME: { status: 500, message: 'Invalid event name' },
  SLUICE_WEBHOOKS_SIGNATURE_MISMATCH: {
    status: 400,
    message: '[@sluice/webhooks] signature does not match event payload and secret',
  },
  SLUICE_WEBHOOKS_INVALID_JSON: { status: 400, message: 'Invalid JSON' },
  SLUICE_WEBHOOKS_UNSUPPORTED_EVENT_NAME: { status: 400, message: 'Event name not accepted' },
  SLUICE_WEBHOOKS_EMPTY_BODY: { status: 400, message: 'Request body is empty' },
  SLUICE_WEBHOOKS_MISSING_HEADERS: { status: 400, message: 'Required headers missing' },
  SLUICE_WEBHOOKS_UNKNOWN_ROUTE: { status: 404, message: 'Unknown route' },
  SLUICE_WEBHOOKS_INVALID_URL: { status: 422, message: 'Request URL could not be parsed' },
  SLUICE_WEBHOOKS_PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body too large' },
  SLUICE_WEBHOOKS_UNSUPPORTED_CONTENT_TYPE: {
    status: 415,
    message: 'Unsupported "Content-Type" header value. Must be "application/json"',
  },
  SLUICE_WEBHOOKS_BODY_ALREADY_PARSED: {
    status: 500,
    message: 'Request body was already consumed by another middleware; raw bytes are needed',
  },
  SLUICE_WEBHOOKS_REQUEST_BODY: { status: 400, message: 'Request body could not be read' },
  SLUICE_WEBHOOKS_BODY_TIMEOUT: { status: 408, message: 'Request body not received in time' },
  SLUICE_WEBHOOKS_TOO_MANY_REQUESTS: {
    status: 429,
    message: 'Too many deliveries in progress; retry later',
  },
  SLUICE_WEBHOOKS_BODY_BUDGET_EXCEEDED: {
    status: 503,
    message: 'Receiver busy: too many request body bytes in progress; retry later',
  },
  SLUICE_WEBHOOKS_INVALID_RELAY_MESSAGE: { status: 400, message: 'Invalid relay message' },
} as const;

export type WebhooksErrorCode = keyof typeof errorCatalogue;

interface ErrorOptions {
  /** What exactly was wrong, appended to the short message. */
  details?: string | undefined;
  cause?: unknown;
}

/** Base class of the toolkit's errors that map to an HTTP status. */
export class WebhooksError extends Error {
  override name = 'WebhooksError';
  readonly code: WebhooksErrorCode;
  /** HTTP status the middleware answers with for this error. */
  readonly status: number;
  readonly shortMessage: string;
  readonly details: string | undefined;

  constructor(code: WebhooksErrorCode, options: ErrorOptions = {}) {
    const entry = errorCatalogue[code];
    super(
      options.details ? `${entry.message}: ${options.details}` : entry.message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.status = entry.status;
    this.shortMessage = entry.message;
    this.details = options.details;
  }
}

/** `new Webhooks()` without a secret: a plain `Error`, as `@octokit/webhooks` throws. */
export class MissingSecretError extends Error {
  override name = 'Error';
  readonly code = 'SLUICE_WEBHOOKS_MISSING_SECRET' as const;
  constructor() {
    super('[@sluice/webhooks] options.secret required');
  }
}

/** A missing or mistyped argument: a programming error, thrown as a `TypeError`. */
export class InvalidArgumentError extends TypeError {
  override name = 'TypeError';
  readonly code = 'SLUICE_WEBHOOKS_INVALID_ARGUMENT' as const;
}

/** `validateEventName()`/`on()` rejected a name (`*`, `error`, unknown or not a string). */
export class InvalidEventNameError extends TypeError {
  override name = 'TypeError';
  readonly code = 'SLUICE_WEBHOOKS_INVALID_EVENT_NAME' as const;
}

/** Named `Error` so bodies and logs read as `@octokit/webhooks`'s (`Error: [@sluice/webhooks] …`). */
export class SignatureVerificationError extends WebhooksError {
  override name = 'Error';
  constructor(options?: ErrorOptions) {
    super('SLUICE_WEBHOOKS_SIGNATURE_MISMATCH', options);
  }
}

/**
 * A payload that is not a JSON object. A `SyntaxError` with the message `Invalid JSON`, as
 * `@octokit/webhooks` throws; what exactly was wrong is in `details` (and `cause`).
 */
export class InvalidJsonError extends SyntaxError {
  override name = 'SyntaxError';
  readonly code = 'SLUICE_WEBHOOKS_INVALID_JSON' as const;
  readonly status = errorCatalogue.SLUICE_WEBHOOKS_INVALID_JSON.status;
  readonly details: string | undefined;
  constructor(options: ErrorOptions = {}) {
    super(
      errorCatalogue.SLUICE_WEBHOOKS_INVALID_JSON.message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.details = options.details;
  }
}

/**
 * A delivery's event name (`X-Provider-Event`) that must never reach handlers: `*` and `error`
 * (reserved for `onAny()`/`onError()`) and anything that is not an event name's form.
 */
export class UnsupportedEventNameError extends WebhooksError {
  override name = 'UnsupportedEventNameError';
  constructor(options?: ErrorOptions) {
    super('SLUICE_WEBHOOKS_UNSUPPORTED_EVENT_NAME', options);
  }
}

/**
 * @deprecated No longer thrown: an empty body is a signature mismatch (400 and `onError`), as in
 * `@octokit/webhooks`. Kept so imports keep compiling.
 */
export class EmptyBodyError extends WebhooksError {
  override name = 'EmptyBodyError';
  constructor(options?: ErrorOptions) {
    super('SLUICE_WEBHOOKS_EMPTY_BODY', options);
  }
}

export class MissingHeadersError extends WebhooksError {
  override name = 'MissingHeadersError';
  /** Lower-case names of the missing headers. */
  readonly missing: string[];
  constructor(missing: string[]) {
    super('SLUICE_WEBHOOKS_MISSING_HEADERS', { details: missing.join(', ') });
    this.missing = missing;
  }
}

export class UnknownRouteError extends WebhooksError {
  override name = 'UnknownRouteError';
  constructor(options?: ErrorOptions) {
    super('SLUICE_WEBHOOKS_UNKNOWN_ROUTE', options);
  }
}

export class InvalidUrlError extends WebhooksError {
  override name = 'InvalidUrlError';
  constructor(options?: ErrorOptions) {
    super('SLUICE_WEBHOOKS_INVALID_URL', options);
  }
}

export class PayloadTooLargeError extends WebhooksError {
  override name = 'PayloadTooLargeError';
  readonly limit: number;
  constructor(limit: number) {
    super('SLUICE_WEBHOOKS_PAYLOAD_TOO_LARGE', {
      details: `the limit is ${limit} bytes (option "maxPayloadBytes")`,
    });
    this.limit = limit;
  }
}

export class UnsupportedContentTypeError extends WebhooksError {
  override name = 'UnsupportedContentTypeError';
  constructor(options?: ErrorOptions) {
    super('SLUICE_WEBHOOKS_UNSUPPORTED_CONTENT_TYPE', options);
  }
}

export class BodyAlreadyParsedError extends WebhooksError {
  override name = 'BodyAlreadyParsedError';
  constructor(options?: ErrorOptions) {
    super('SLUICE_WEBHOOKS_BODY_ALREADY_PARSED', options);
  }
}

export class RequestBodyError extends WebhooksError {
  override name = 'RequestBodyError';
  constructor(options?: ErrorOptions) {
    super('SLUICE_WEBHOOKS_REQUEST_BODY', options);
  }
}

export class InvalidRelayMessageError extends WebhooksError {
  override name = 'InvalidRelayMessageError';
  constructor(options?: ErrorOptions) {
    super('SLUICE_WEBHOOKS_INVALID_RELAY_MESSAGE', options);
  }
}

/** The body did not arrive within the middleware's `bodyTimeout` (408; the connection is closed). */
export class BodyTimeoutError extends WebhooksError {
  override name = 'BodyTimeoutError';
  readonly timeout: number;
  constructor(timeout: number) {
    super('SLUICE_WEBHOOKS_BODY_TIMEOUT', {
      details: `the limit is ${timeout} ms (option "bodyTimeout")`,
    });
    this.timeout = timeout;
  }
}

/** More requests in progress than the middleware's `maxConcurrentRequests` (429). */
export class TooManyRequestsError extends WebhooksError {
  override name = 'TooManyRequestsError';
  /** Seconds, sent as `Retry-After`. */
  readonly retryAfter: number;
  constructor(limit: number, retryAfter: number) {
    super('SLUICE_WEBHOOKS_TOO_MANY_REQUESTS', {
      details: `the limit is ${limit} (option "maxConcurrentRequests")`,
    });
    this.retryAfter = retryAfter;
  }
}

/** Bodies in progress would pass the middleware's `maxConcurrentBodyBytes` (503). */
export class BodyBudgetExceededError extends WebhooksError {
  override name = 'BodyBudgetExceededError';
  /** Seconds, sent as `Retry-After`. */
  readonly retryAfter: number;
  constructor(limit: number, retryAfter: number) {
    super('SLUICE_WEBHOOKS_BODY_BUDGET_EXCEEDED', {
      details: `the limit is ${limit} bytes (option "maxConcurrentBodyBytes")`,
    });
    this.retryAfter = retryAfter;
  }
}
