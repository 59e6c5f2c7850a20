import { expect, it } from 'vitest';
import { constantTimeEqual } from './constant-time-equal.js';

it('is true only for identical strings', () => {
  expect(constantTimeEqual('abc', 'abc')).toBe(true);
  expect(constantTimeEqual('', '')).toBe(true);
  expect(constantTimeEqual('abc', 'abd')).toBe(false);
  expect(constantTimeEqual('xbc', 'abc')).toBe(false);
  expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  expect(constantTimeEqual('a'.repeat(64), `${'a'.repeat(63)}b`)).toBe(false);
});
