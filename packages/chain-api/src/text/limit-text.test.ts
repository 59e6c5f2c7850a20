import { describe, expect, it } from 'vitest';
import { codePointLength, limitText, wellFormed } from './limit-text.js';

const isWellFormed = (s: string) =>
  !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

describe('wellFormed', () => {
  it('replaces lone high and low surrogates, keeps pairs', () => {
    expect(wellFormed('a\uD83Db')).toBe('a\uFFFDb');
    expect(wellFormed('a\uDE00b')).toBe('a\uFFFDb');
    expect(wellFormed('\uDE00\uD83D')).toBe('\uFFFD\uFFFD');
    expect(wellFormed('😀\uD83D')).toBe('😀\uFFFD');
    expect(wellFormed('ok 😀 é')).toBe('ok 😀 é');
  });
});

describe('codePointLength', () => {
  it('counts a surrogate pair once', () => {
    expect(codePointLength('')).toBe(0);
    expect(codePointLength('abc')).toBe(3);
    expect(codePointLength('😀😀')).toBe(2);
    expect('😀😀'.length).toBe(4);
  });
});

describe('limitText', () => {
  it('counts code points, not UTF-16 units', () => {
    const emoji = '😀'.repeat(200);
    expect(limitText(emoji, 200)).toBe(emoji); // 400 UTF-16 units, 200 code points: kept whole
    expect(limitText('😀'.repeat(201), 200)).toBe(emoji);
    expect(limitText('abc', 3)).toBe('abc');
    expect(limitText('abcd', 3)).toBe('abc');
  });

  it('never splits a surrogate pair at any limit', () => {
    const text = 'a😀b🎉c🚀'.repeat(10);
    for (let limit = 0; limit <= codePointLength(text) + 1; limit++) {
      const cut = limitText(text, limit);
      expect(isWellFormed(cut), `limit ${limit}`).toBe(true);
      expect(codePointLength(cut)).toBeLessThanOrEqual(limit);
      expect(text.startsWith(cut)).toBe(true);
    }
  });

  it('keeps combining marks with their letter and ZWJ emoji sequences whole', () => {
    const e = 'e\u0301'; // é as e + combining acute: 2 code points
    expect(limitText(`${e}${e}`, 3)).toBe(e);
    expect(limitText(`${e}${e}`, 4)).toBe(`${e}${e}`);
    const family = '👨‍👩‍👧'; // 5 code points (3 emoji + 2 ZWJ)
    expect(limitText(`ab${family}`, 6)).toBe('ab');
    expect(limitText(`ab${family}`, 7)).toBe(`ab${family}`);
    const flag = '🇺🇸'; // two regional indicators
    expect(limitText(`x${flag}`, 2)).toBe('x');
  });

  it('cuts a single cluster longer than the limit at the code point limit', () => {
    const zalgo = `a${'\u0301'.repeat(1_000)}`;
    const cut = limitText(zalgo, 10);
    expect(codePointLength(cut)).toBe(10);
    expect(cut.startsWith('a\u0301')).toBe(true);
  });

  it('replaces lone surrogates in the input, also when no cut is needed', () => {
    expect(limitText('\uD83D', 200)).toBe('\uFFFD');
    expect(limitText(`${'x'.repeat(199)}\uD83D\uD83D`, 200)).toBe(`${'x'.repeat(199)}\uFFFD`);
    const mixed = `\uDE00${'😀'.repeat(300)}\uD83D`;
    const cut = limitText(mixed, 100);
    expect(isWellFormed(cut)).toBe(true);
    expect(codePointLength(cut)).toBe(100);
  });

  it('cuts long inputs (20,000 of 200,000 code points) exactly', () => {
    const long = '😀é'.repeat(100_000);
    const cut = limitText(long, 20_000);
    expect(codePointLength(cut)).toBe(20_000);
    expect(isWellFormed(cut)).toBe(true);
  });
});
