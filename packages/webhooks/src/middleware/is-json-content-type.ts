// Media types are case-insensitive (RFC 9110); parameters such as charset are allowed.
const JSON_CONTENT_TYPE_RE = /^\s*application\/json\s*(?:;|$)/i;

/**
 * Whether a `Content-Type` header value is `application/json` (with or without parameters).
 *
 * @example
 * ```ts
 * isJsonContentType('application/json; charset=utf-8'); // true
 * isJsonContentType('application/x-www-form-urlencoded'); // false
 * ```
 */
export function isJsonContentType(value: string | undefined): boolean {
  return value !== undefined && (value === 'application/json' || JSON_CONTENT_TYPE_RE.test(value));
}
