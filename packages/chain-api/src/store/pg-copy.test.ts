import { describe, expect, it } from 'vitest';
import { copyLine } from './pg-copy.js';

describe('copyLine', () => {
  it('writes NULL as \\N, numbers and strings as text, one line per row', () => {
    expect(copyLine([1, null, undefined, 'abc', 10n, 0])).toBe('1\t\\N\t\\N\tabc\t10\t0\n');
  });

  it('escapes backslash, tab, newline and carriage return', () => {
    expect(copyLine(['a\\b', 'c\td', 'e\nf', 'g\rh'])).toBe('a\\\\b\tc\\td\te\\nf\tg\\rh\n');
  });

  it('leaves other text, emoji and JSON alone', () => {
    const json = JSON.stringify({ name: 'x y', emoji: '🦄' });
    expect(copyLine([json, 'ünï'])).toBe(`${json}\tünï\n`);
  });
});

describe('copyLine column kinds', () => {
  it('writes bytea hex as escaped \\x without scanning, plain columns as is', () => {
    expect(
      copyLine(['0xdeadBEEF', 12n, '2024-01-01T00:00:00.000Z'], ['bytea', 'plain', 'plain']),
    ).toBe('\\\\xdeadBEEF\t12\t2024-01-01T00:00:00.000Z\n');
  });

  it('escapes a bytea value that is not well-formed hex instead of trusting it', () => {
    expect(copyLine(['0xab\n\\N'], ['bytea'])).toBe('0xab\\n\\\\N\n');
  });
});
