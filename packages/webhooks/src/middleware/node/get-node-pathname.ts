import { normalizeTrailingSlashes } from '../normalize-trailing-slashes.js';

/**
 * The path of a Node request URL without query or fragment. Origin-form URLs (`/path?x`) are
 * cut by hand (no `URL` allocation per request); absolute-form ones are parsed. `null` when the
 * URL cannot be parsed.
 *
 * @example
 * ```ts
 * getNodePathname('/api/hosting/webhooks/?x=1'); // '/api/hosting/webhooks'
 * ```
 */
export function getNodePathname(url: string | undefined): string | null {
  if (url === undefined || url === '') return null;
  if (url.charCodeAt(0) === 47 /* / */ && url.charCodeAt(1) !== 47) {
    let end = url.length;
    const query = url.indexOf('?');
    if (query !== -1) end = query;
    const hash = url.indexOf('#');
    if (hash !== -1 && hash < end) end = hash;
    return normalizeTrailingSlashes(end === url.length ? url : url.slice(0, end));
  }
  // `//`, `///?x`: only slashes is the root (as for the peer), not an empty authority.
  if (/^\/+(?:[?#]|$)/.test(url)) return '/';
  try {
    return normalizeTrailingSlashes(new URL(url, 'http://localhost').pathname);
  } catch {
    return null;
  }
}
