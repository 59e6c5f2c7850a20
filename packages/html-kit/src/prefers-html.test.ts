import { describe, expect, it } from 'vitest';
import { prefersHtml } from './prefers-html.js';

describe('prefersHtml', () => {
  it.each([
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true],
    ['text/html', true],
    ['TEXT/HTML', true],
    ['text/*', true],
    ['text/*, application/json;q=0.5', true],
    ['*/*', false],
    ['', false],
    [undefined, false],
    ['application/json', false],
    ['application/*', false],
    // Equal quality: the first listed wins (negotiator's rule); with a wildcard, JSON.
    ['application/json, text/html', false],
    ['text/html, application/json', true],
    ['text/html;q=0.5, application/json', false],
    ['text/html, application/json;q=0.9', true],
    ['text/html;q=0', false],
    ['text/html;q=0, */*', false],
    // The most specific range decides: text/html at 0.2 is not rescued by text/* at 1.
    ['text/html;q=0.2, text/*, application/json;q=0.5', false],
    ['image/png', false],
    ['not a media type', false],
  ])('%s -> %s', (accept, expected) => {
    expect(prefersHtml(accept)).toBe(expected);
  });
});
