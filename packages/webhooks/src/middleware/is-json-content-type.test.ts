import { expect, it } from 'vitest';
import { isJsonContentType } from './is-json-content-type.js';

it.each([
  ['application/json', true],
  ['application/json; charset=utf-8', true],
  ['APPLICATION/JSON', true],
  ['  application/json  ', true],
  ['application/jsonp', false],
  ['application/x-www-form-urlencoded', false],
  ['text/json', false],
  ['application/vnd.api+json', false],
  ['', false],
  [undefined, false],
])('isJsonContentType(%s) is %s', (value, expected) => {
  expect(isJsonContentType(value)).toBe(expected);
});
