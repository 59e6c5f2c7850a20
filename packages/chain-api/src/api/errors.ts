import { BaseError } from '../errors/index.js';

/**
 * The API's error catalogue: every error the HTTP layer can answer with, its status and its
 * default text, in one place. Routes throw `ApiError`s; the error handler renders them in the
 * body format the peer uses for that endpoint (see `ErrorFormat`).
 */

/** How an endpoint writes its error bodies, as the peer does it. */
export type ErrorFormat =
  /** `text/plain` body (activity endpoint). */
  | 'text'
  /** JSON `{message}` (balances and single-token endpoints). */
  | 'message'
  /** JSON `{error}` (collectibles, gateway errors 401/429, everything else). */
  | 'error'
  /** JSON `{error: {message, code}}` (token holders, token search). */
  | 'detail';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Body format of this route's errors (default `error`). */
    errorFormat?: ErrorFormat;
  }
}

/** Status and default text of each API code (the codes belong to the one catalogue in errors/). */
export const errorCatalogue = {
  INVALID_PARAMETER: { status: 400, text: 'Invalid request parameter' },
  INVALID_BODY: { status: 422, text: 'Invalid request body' },
  UNAUTHORIZED: { status: 401, text: 'invalid API Key' },
  QUOTA_EXCEEDED: { status: 402, text: 'Compute unit quota exceeded' },
  NOT_FOUND: { status: 404, text: 'Not found' },
  RATE_LIMITED: { status: 429, text: 'Too many requests' },
  INTERNAL: { status: 500, text: 'Internal server error' },
  NOT_READY: { status: 503, text: 'Try again later' },
  DATABASE_UNAVAILABLE: {
    status: 503,
    text: 'Database unavailable: the service is reconnecting, try again in a few seconds',
  },
  REQUEST_TIMEOUT: {
    status: 503,
    text: 'The request took longer than this server allows and was cancelled; retry later or ask for less',
  },
  // Nobody reads it: the status access logs give such requests (nginx's convention).
  CLIENT_CLOSED: { status: 499, text: 'The client closed the connection before the answer' },
} as const satisfies Record<string, { status: number; text: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

/** Errors that always use the gateway's `{error}` body, whatever the endpoint. */
const gatewayCodes: ReadonlySet<ErrorCode> = new Set([
  'UNAUTHORIZED',
  'RATE_LIMITED',
  'REQUEST_TIMEOUT',
  'QUOTA_EXCEEDED',
]);

/**
 * An error with a status from the catalogue and a message safe to show to the caller.
 *
 * @example
 * throw new ApiError('INVALID_PARAMETER', "Invalid parameter 'limit': expected an integer");
 */
export class ApiError extends BaseError<ErrorCode> {
  override name = 'ApiError';
  readonly statusCode: number;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message?: string, headers: Record<string, string> = {}) {
    super(message ?? errorCatalogue[code].text, { code });
    this.statusCode = errorCatalogue[code].status;
    this.headers = headers;
  }
}

/** A 400 whose message names the offending parameter. */
export function invalidParameter(parameter: string, problem: string): ApiError {
  return new ApiError('INVALID_PARAMETER', `Invalid parameter '${parameter}': ${problem}`);
}

/** The 429 answer; `contact` is who to ask for a higher limit (default: sales). */
export function rateLimited(retryAfterSeconds: number, contact = 'sales'): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new ApiError(
    'RATE_LIMITED',
    `Too many requests. Please contact ${contact} to increase your limit, or retry in ${seconds} s.`,
    { 'retry-after': String(seconds) },
  );
}

/**
 * The 402 answer: the request would pass the key's compute-unit quota. `retry-after` is when the
 * period (UTC day or month) turns over.
 */
export function quotaExceeded(
  quota: number,
  period: 'day' | 'month',
  periodEnd: Date,
  contact = 'sales',
): ApiError {
  const seconds = Math.max(1, Math.ceil((periodEnd.getTime() - Date.now()) / 1000));
  return new ApiError(
    'QUOTA_EXCEEDED',
    `Compute unit quota exceeded (${quota} per ${period}). Please contact ${contact} to increase your quota, or retry after ${periodEnd.toISOString()}.`,
    { 'retry-after': String(seconds) },
  );
}

/** Body and content type of an error for an endpoint with the given format. */
export function renderError(
  error: { message: string; code?: string },
  format: ErrorFormat,
): { contentType: string; body: string } {
  const gateway = error.code !== undefined && gatewayCodes.has(error.code as ErrorCode);
  const effective: ErrorFormat = gateway ? 'error' : format;
  if (effective === 'text') {
    return { contentType: 'text/plain; charset=utf-8', body: error.message };
  }
  if (effective === 'detail') {
    const body = { error: { message: error.message, code: detailCode(error.code) } };
    return { contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) };
  }
  const body = effective === 'message' ? { message: error.message } : { error: error.message };
  return { contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) };
}

/** The peer's `code` of a `detail` error body. */
function detailCode(code: string | undefined): string {
  if (code === 'INVALID_PARAMETER' || code === undefined) return 'BAD_REQUEST';
  if (code === 'INTERNAL') return 'INTERNAL_ERROR';
  return code;
}
