/**
 * The one error catalogue of the service: every error a client can see has a code, an HTTP
 * status and a default message here, and reaches the wire as `{ error, message, statusCode, code }`
 * (plus `fields` for per-field validation messages). Stack traces never leave the process.
 */
export const errorCatalogue = {
  USERS_VALIDATION: { statusCode: 400, message: 'Invalid user record' },
  USERS_INVALID_ID: { statusCode: 400, message: 'Invalid id' },
  USERS_INVALID_QUERY: { statusCode: 400, message: 'Invalid query parameter' },
  USERS_INVALID_JSON: { statusCode: 400, message: 'Body is not valid JSON' },
  USERS_FORBIDDEN_KEY: { statusCode: 400, message: 'Body contains a forbidden key' },
  USERS_ID_MISMATCH: { statusCode: 400, message: 'Body id differs from the path id' },
  USERS_BAD_REQUEST: { statusCode: 400, message: 'Bad request' },
  USERS_CROSS_SITE: {
    statusCode: 403,
    message: 'Cross-site request refused: changes are only accepted from this service',
  },
  USERS_HOST_NOT_ALLOWED: { statusCode: 403, message: 'Host not allowed' },
  USERS_NOT_FOUND: { statusCode: 404, message: 'User not found' },
  USERS_ROUTE_NOT_FOUND: { statusCode: 404, message: 'Route not found' },
  USERS_METHOD_NOT_ALLOWED: { statusCode: 405, message: 'Method not allowed' },
  USERS_REQUEST_TIMEOUT: { statusCode: 408, message: 'Request body not received in time' },
  USERS_DUPLICATE_ID: { statusCode: 409, message: 'A user with this id already exists' },
  USERS_BODY_TOO_LARGE: { statusCode: 413, message: 'Request body is too large' },
  USERS_UNSUPPORTED_MEDIA_TYPE: { statusCode: 415, message: 'Unsupported media type' },
  USERS_SHUTTING_DOWN: { statusCode: 503, message: 'Server is shutting down' },
  USERS_DATABASE_UNAVAILABLE: { statusCode: 503, message: 'Database unavailable' },
  USERS_INTERNAL: { statusCode: 500, message: 'Internal server error' },
} as const satisfies Record<string, { statusCode: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

/** Standard reason phrases for the statuses the catalogue uses. */
const reasonPhrases: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** JSON body of every error response. */
export interface ErrorBody {
  error: string;
  message: string;
  statusCode: number;
  code: ErrorCode;
  /** Per-field messages, for validation errors. */
  fields?: Record<string, string>;
}

/**
 * An error with a catalogue code; the error handler turns it into its JSON body.
 *
 * @example
 * throw new UsersError('USERS_NOT_FOUND', 'No user with id 42');
 */
export class UsersError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly fields: Record<string, string> | undefined;
  /** Extra response headers, e.g. `Allow` for 405. */
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message?: string,
    options: { fields?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    super(message ?? errorCatalogue[code].message);
    this.name = 'UsersError';
    this.code = code;
    this.statusCode = errorCatalogue[code].statusCode;
    this.fields = options.fields;
    this.headers = options.headers;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = {
      error: reasonPhrases[this.statusCode] ?? 'Error',
      message: this.message,
      statusCode: this.statusCode,
      code: this.code,
    };
    if (this.fields) body.fields = this.fields;
    return body;
  }
}

/** Fastify's own error codes, mapped onto the catalogue so clients see one vocabulary. */
const fastifyCodes: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'USERS_BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'USERS_UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'USERS_INVALID_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'USERS_INVALID_JSON',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'USERS_BAD_REQUEST',
  FST_ERR_VALIDATION: 'USERS_BAD_REQUEST',
};

/**
 * Turns anything thrown into a catalogue error. Unknown errors become a generic 500 (the caller
 * logs the original); client errors raised by Fastify or Node keep their status.
 */
export function toUsersError(err: unknown): UsersError {
  if (err instanceof UsersError) return err;
  const e = err as { code?: unknown; statusCode?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? fastifyCodes[e.code] : undefined;
  if (code === 'USERS_UNSUPPORTED_MEDIA_TYPE') {
    return new UsersError(
      code,
      'Unsupported media type: send application/json or application/x-www-form-urlencoded',
    );
  }
  if (code) return new UsersError(code);
  const status = typeof e?.statusCode === 'number' ? e.statusCode : 500;
  if (status === 413) return new UsersError('USERS_BODY_TOO_LARGE');
  if (status === 415) return new UsersError('USERS_UNSUPPORTED_MEDIA_TYPE');
  if (status >= 400 && status < 500) {
    // Client errors from the HTTP layer (bad headers, aborted bodies): safe to pass the message.
    return new UsersError(
      'USERS_BAD_REQUEST',
      typeof e?.message === 'string' ? e.message : undefined,
    );
  }
  return new UsersError('USERS_INTERNAL');
}
