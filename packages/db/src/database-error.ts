/** A storage failure with a short message and, separately, details safe to log. */
export class DatabaseError extends Error {
  override readonly name = 'DatabaseError';
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
