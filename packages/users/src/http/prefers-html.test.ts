import { describe, expect, it } from 'vitest';
import { prefersHtml } from './prefers-html.js';

describe('prefersHtml', () => {
  it.each([
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true],
    ['text/html', true],
    ['text/*', true],
    ['*/*', false],
    [undefined, false],
    ['application/json', false],
    ['application/json, text/html', false],
    ['text/html;q=0.5, application/json', false],
    ['text/html, application/json;q=0.9', true],
    ['text/html;q=0', false],
  ])('%s -> %s', (accept, expected) => {
    expect(prefersHtml(accept)).toBe(expected);
  });
});
