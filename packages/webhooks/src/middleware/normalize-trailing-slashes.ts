/**
 * Drops trailing slashes so `/hooks/` matches `/hooks`; the root stays `/`.
 *
 * @example
 * ```ts
 * normalizeTrailingSlashes('/api/hosting/webhooks//'); // '/api/hosting/webhooks'
 * ```
 */
export function normalizeTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 47) end--;
  return end === path.length ? path : path.slice(0, end);
}
