import { describe, expect, it } from 'vitest';
import { getRequestPathname } from './get-request-pathname.js';

/** The peer's own computation, for comparison. */
const octokitPathname = (url: string): string | null => {
  let i = url.length;
  while (i > 0 && url.charCodeAt(i - 1) === 47) i--;
  try {
    return new URL(i === 0 ? '/' : url.slice(0, i), 'http://localhost').pathname;
  } catch {
    return null;
  }
};

describe('getRequestPathname', () => {
  it.each([
    ['/api/hosting/webhooks', '/api/hosting/webhooks'],
    ['/api/hosting/webhooks/', '/api/hosting/webhooks'],
    ['/api/hosting/webhooks?x=1', '/api/hosting/webhooks'],
    ['/api/hosting/webhooks/?x=1', '/api/hosting/webhooks/'],
    ['/api/hosting/webhooks?x=1/', '/api/hosting/webhooks'],
    ['/api/hosting/webhooks#frag', '/api/hosting/webhooks'],
    ['/a/../api/./hooks', '/api/hooks'],
    ['/a b/%7e', '/a%20b/%7e'],
    ['/a?b#c', '/a'],
    ['', '/'],
    ['/', '/'],
    ['//', '/'],
    ['///', '/'],
    ['http://host.test/api/hosting/webhooks/', '/api/hosting/webhooks'],
    ['http://host.test/api/hosting/webhooks/?q', '/api/hosting/webhooks/'],
    ['//evil.test/api/hosting/webhooks', '/api/hosting/webhooks'],
  ])('%s -> %s (as the peer computes it)', (url, expected) => {
    expect(getRequestPathname(url)).toBe(expected);
    expect(octokitPathname(url)).toBe(expected);
  });

  it('returns null for a URL that cannot be parsed', () => {
    expect(getRequestPathname('http://[bad')).toBeNull();
    expect(getRequestPathname('//[')).toBeNull();
  });
});
