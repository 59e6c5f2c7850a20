import { normalizeTrailingSlashes } from './normalize-trailing-slashes.js';

// Paths the URL parser would return unchanged: no dot segments, percent escapes, backslashes or
// characters it encodes. Anything else goes through `URL` itself.
const PLAIN_PATH = /^\/[A-Za-z0-9_~!$&'()*+,;=:@/-]*$/;

/**
 * The path a request URL is matched on, computed as `@octokit/webhooks` does: trailing slashes
 * are dropped from the whole URL (query included) before parsing, so `/hooks/` and `/hooks?a=1`
 * are `/hooks` but `/hooks/?a=1` is `/hooks/` (not the hook path). Plain origin-form URLs are
 * cut by hand (no `URL` allocation per request). `null` when the URL cannot be parsed.
 *
 * @example
 * ```ts
 * getRequestPathname('/api/hosting/webhooks?x=1'); // '/api/hosting/webhooks'
 * getRequestPathname('/api/hosting/webhooks/?x=1'); // '/api/hosting/webhooks/'
 * ```
 */
export function getRequestPathname(url: string): string | null {
  const stripped = normalizeTrailingSlashes(url);
  if (stripped.charCodeAt(0) === 47 /* / */ && stripped.charCodeAt(1) !== 47) {
    let end = stripped.length;
    const query = stripped.indexOf('?');
    if (query !== -1) end = query;
    const hash = stripped.indexOf('#');
    if (hash !== -1 && hash < end) end = hash;
    const path = end === stripped.length ? stripped : stripped.slice(0, end);
    if (PLAIN_PATH.test(path)) return path;
  }
  try {
    return new URL(stripped, 'http://localhost').pathname;
  } catch {
    return null;
  }
}
