import { type ErrorCode, errorCodes } from './error-codes.js';

export interface BaseErrorOptions<C extends ErrorCode = ErrorCode> {
  code: C;
  /** Defaults to the catalogue's value for `code`. */
  retryable?: boolean | undefined;
  /** Further facts for logs (never secrets); not part of `message` unless `message` says so. */
  details?: string | undefined;
  cause?: unknown;
  /** The full message when it is more than `shortMessage` (e.g. short message plus details). */
  message?: string | undefined;
}

/**
 * The base of every chain-api error (viem's `BaseError` shape): a `shortMessage` fit for a log
 * line or an answer, optional `details`, the `cause`, a stable `code` from the catalogue and
 * whether retrying may succeed. Callers decide by `code` and `retryable`, not by class.
 *
 * @example
 * class ThingMissingError extends BaseError {
 *   override name = 'ThingMissingError';
 *   constructor(what: string) {
 *     super(`${what} is missing`, { code: 'BLOCK_NOT_FOUND' });
 *   }
 * }
 */
export class BaseError<C extends ErrorCode = ErrorCode> extends Error {
  override name = 'BaseError';
  readonly code: C;
  readonly retryable: boolean;
  readonly shortMessage: string;
  readonly details: string | undefined;

  constructor(shortMessage: string, options: BaseErrorOptions<C>) {
    super(options.message ?? shortMessage, { cause: options.cause });
    this.code = options.code;
    this.retryable = options.retryable ?? errorCodes[options.code].retryable;
    this.shortMessage = shortMessage;
    this.details = options.details;
  }
}

/** Whether `error` is one of ours and says retrying may succeed (unknown errors: undefined). */
export function isRetryable(error: unknown): boolean | undefined {
  return error instanceof BaseError ? error.retryable : undefined;
}

/** The message of anything thrown (an Error's message, else its string form), for log fields. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
