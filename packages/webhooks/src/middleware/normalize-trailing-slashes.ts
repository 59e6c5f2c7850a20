/**
 * Drops trailing slashes so `/hooks/` matches `/hooks`; the root and `''` become `/`, as in
 * `@octokit/webhooks`.
 *
 * @example
 * ```ts
 * normalizeTrailingSlashes('/api/hosting/webhooks//'); // '/api/hosting/webhooks'
 * ```
 */
export function normalizeTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 47) end--;
  if (end === 0) return '/';
  return end === path.length ? path : path.slice(0, end);
}
