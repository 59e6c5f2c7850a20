import { describe, expect, it } from 'vitest';
import { createCursorCodec } from './cursor.js';
import { ApiError } from './errors.js';

const codec = createCursorCodec('a-test-secret-of-enough-length');

describe('cursor codec', () => {
  it('round-trips a key within its scope', () => {
    const token = codec.encode('activity|0xabc', [1700000000, 1, '123', 4, 5, 0]);
    expect(codec.decode('activity|0xabc', token)).toEqual([1700000000, 1, '123', 4, 5, 0]);
  });

  it('rejects a cursor replayed against another scope', () => {
    const token = codec.encode('activity|0xabc', [1]);
    expect(() => codec.decode('activity|0xdef', token)).toThrow(ApiError);
  });

  it('rejects any edited byte of payload or tag', () => {
    const token = codec.encode('s', [1700000000, 1, '999']);
    for (let i = 0; i < token.length; i++) {
      if (token[i] === '.') continue;
      const flipped = token[i] === 'A' ? 'B' : 'A';
      const edited = token.slice(0, i) + flipped + token.slice(i + 1);
      expect(() => codec.decode('s', edited), `position ${i}`).toThrow(/offset/);
    }
  });

  it('rejects cursors made with another secret, and garbage', () => {
    const other = createCursorCodec('another-secret-of-enough-length');
    expect(() => codec.decode('s', other.encode('s', [1]))).toThrow(ApiError);
    for (const junk of ['', '.', 'abc', 'a.b', 'x'.repeat(5000), 'eyJ9.AAAA', '!!.??']) {
      expect(() => codec.decode('s', junk)).toThrow(ApiError);
    }
  });

  it('names the parameter in the 400', () => {
    try {
      codec.decode('s', 'nope.nope');
      expect.unreachable();
    } catch (error) {
      expect((error as ApiError).statusCode).toBe(400);
      expect((error as ApiError).message).toContain("'offset'");
    }
  });

  it('refuses a short secret', () => {
    expect(() => createCursorCodec('short')).toThrow(/16 bytes/);
  });
});
