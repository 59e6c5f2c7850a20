import { BaseError } from '../errors/index.js';

/** Catalogue codes of RPC failures. */
type RpcErrorCode =
  | 'RPC_ABORTED'
  | 'RPC_TRANSPORT'
  | 'RPC_HTTP'
  | 'RPC_MALFORMED_RESPONSE'
  | 'RPC_RESPONSE'
  | 'RPC_TOO_LARGE';

/**
 * Typed RPC failures. Messages never contain the node URL (it often embeds an API key) nor
 * request bodies; `redactUrl` gives a loggable form of the URL.
 */
export class RpcError extends BaseError<RpcErrorCode> {
  override name = 'RpcError';
  /** JSON-RPC method (or `batch`) that failed. */
  readonly method: string;
  constructor(
    message: string,
    opts: { code: RpcErrorCode; method: string; retryable: boolean; cause?: unknown },
  ) {
    super(message, { code: opts.code, retryable: opts.retryable, cause: opts.cause });
    this.method = opts.method;
  }
}

/** The node did not answer in time, refused the connection or dropped it. */
export class RpcTransportError extends RpcError {
  override name = 'RpcTransportError';
  constructor(method: string, detail: string, cause?: unknown) {
    super(`RPC transport failure on ${method}: ${detail}`, {
      code: 'RPC_TRANSPORT',
      method,
      retryable: true,
      cause,
    });
  }
}

/** The node did not answer within the client's timeout. */
export class RpcTimeoutError extends RpcTransportError {
  override name = 'RpcTimeoutError';
  constructor(method: string, cause?: unknown) {
    super(method, 'timed out', cause);
  }
}

/** The node answered with an HTTP error status (429, 5xx, ...). */
export class RpcHttpError extends RpcError {
  override name = 'RpcHttpError';
  readonly status: number;
  /** Seconds from a `Retry-After` header, when the node sent one. */
  readonly retryAfter: number | undefined;
  constructor(method: string, status: number, retryAfter?: number) {
    super(`RPC HTTP ${status} on ${method}`, {
      code: 'RPC_HTTP',
      method,
      retryable: status === 408 || status === 413 || status === 429 || status >= 500,
    });
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

/**
 * A single call's answer is larger than the client accepts (or the node refused the request as
 * too large): asking again gets the same answer, so it is final.
 */
export class RpcTooLargeError extends RpcError {
  override name = 'RpcTooLargeError';
  constructor(method: string) {
    super(`RPC answer to ${method} is larger than the client accepts`, {
      code: 'RPC_TOO_LARGE',
      method,
      retryable: false,
    });
  }
}

/** The answer was not valid JSON-RPC, or its result failed validation (e.g. a null block). */
export class RpcMalformedResponseError extends RpcError {
  override name = 'RpcMalformedResponseError';
  constructor(method: string, detail: string, retryable = true) {
    super(`Malformed RPC response to ${method}: ${detail}`, {
      code: 'RPC_MALFORMED_RESPONSE',
      method,
      retryable,
    });
  }
}

/**
 * A JSON-RPC error object. Retryable only for codes/messages that mean "busy, try again".
 * `rpcCode` is the node's JSON-RPC error code; `code` is the catalogue's, like every error's.
 */
export class RpcResponseError extends RpcError {
  override name = 'RpcResponseError';
  readonly rpcCode: number;
  readonly data: unknown;
  constructor(method: string, rpcCode: number, message: string, data?: unknown) {
    super(`RPC error ${rpcCode} on ${method}: ${truncate(message, 200)}`, {
      code: 'RPC_RESPONSE',
      method,
      retryable: isRetryableRpcCode(rpcCode, message),
    });
    this.rpcCode = rpcCode;
    this.data = data;
  }
}

/** eth_getLogs refused a range as too large; the caller splits it. */
export function isRangeTooLarge(error: unknown): boolean {
  return (
    error instanceof RpcResponseError &&
    /more than \d+ results|too many|range|limit exceeded|response size|block range/i.test(
      error.message,
    )
  );
}

/** The node doesn't implement the method (probes treat this as "capability absent"). */
export function isMethodNotFound(error: unknown): boolean {
  return (
    error instanceof RpcResponseError &&
    (error.rpcCode === -32601 ||
      error.rpcCode === -32004 ||
      /not (found|supported|available)|unsupported|does not exist/i.test(error.message))
  );
}

function isRetryableRpcCode(code: number, message: string): boolean {
  // The call itself failed (anvil reports running out of gas as -32603 "EVM error OutOfGas"):
  // asking again runs into the same wall.
  if (/out ?of ?gas|revert/i.test(message)) return false;
  // -32005 limit exceeded, -32007 QuickNode rate limit, 429 in-body rate limit, -32603 internal.
  if (code === -32005 || code === -32007 || code === 429 || code === -32603) return true;
  return /rate limit|too many requests|timeout|timed out|try again|busy|header not found|unavailable|overloaded/i.test(
    message,
  );
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * Loggable form of an RPC URL: scheme and host only, since paths and queries often carry keys.
 *
 * @example redactUrl('https://eth.example.com/v2/SECRET') // 'https://eth.example.com/…'
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const hasRest = u.pathname.length > 1 || u.search.length > 0 || u.username !== '';
    return `${u.protocol}//${u.host}${hasRest ? '/…' : ''}`;
  } catch {
    return '(invalid url)';
  }
}
