/** A storage failure with a short message and, separately, details safe to log. */
export class DatabaseError extends Error {
  override readonly name: string = 'DatabaseError';
  readonly details: string | undefined;

  constructor(message: string, details?: string, options?: { cause?: unknown }) {
    super(details ? `${message}: ${details}` : message, options);
    this.details = details;
  }
}

/** PostgreSQL SQLSTATE of an error thrown by either driver, e.g. `23505` for unique violations. */
export function sqlState(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

// SQLSTATEs meaning the server (not the statement) is the problem: connection exceptions (08),
// shutdown / not yet accepting connections (57P01-57P03), statement timeout (57014), too many
// connections (53300).
const unavailableStates = /^08|^57P0[1-3]$|^57014$|^53300$/;
const unavailableErrnos = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// node-postgres raises these without a code.
const unavailableMessages =
  /^(Connection terminated|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Connection terminated unexpectedly)/;

/**
 * Whether `error` means the database is unreachable, restarting, overloaded or too slow (so the
 * right answer is 503 and a retry), rather than a problem with the statement itself.
 *
 * @example
 * if (isDatabaseUnavailable(error)) return reply.code(503).send({ error: 'Database unavailable' });
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 4; depth++) {
    if (typeof e !== 'object') return false;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (unavailableStates.test(code) || unavailableErrnos.has(code))) {
      return true;
    }
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && unavailableMessages.test(message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
