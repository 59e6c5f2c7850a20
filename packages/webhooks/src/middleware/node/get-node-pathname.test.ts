import { describe, expect, it } from 'vitest';
import { getNodePathname } from './get-node-pathname.js';

describe('getNodePathname', () => {
  it.each([
    ['/api/hosting/webhooks', '/api/hosting/webhooks'],
    ['/api/hosting/webhooks/', '/api/hosting/webhooks'],
    ['/api/hosting/webhooks?x=1/', '/api/hosting/webhooks'],
    ['/api/hosting/webhooks#frag', '/api/hosting/webhooks'],
    ['/a?b#c', '/a'],
    ['/', '/'],
    ['//', '/'],
    ['///', '/'],
    ['//?x=1', '/'],
    ['http://host.test/api/hosting/webhooks/?q', '/api/hosting/webhooks'],
    ['//evil.test/api/hosting/webhooks', '/api/hosting/webhooks'],
  ])('%s -> %s', (url, expected) => {
    expect(getNodePathname(url)).toBe(expected);
  });

  it('returns null for a missing or unparsable URL', () => {
    expect(getNodePathname(undefined)).toBeNull();
    expect(getNodePathname('')).toBeNull();
    expect(getNodePathname('http://[bad')).toBeNull();
  });
});
