export { BaseError, type BaseErrorOptions, isRetryable, messageOf } from './base-error.js';
export { ConfigError } from './config-error.js';
export { type ErrorCode, errorCodes } from './error-codes.js';
export { InternalError } from './internal-error.js';
