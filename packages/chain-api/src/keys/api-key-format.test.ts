import { describe, expect, it } from 'vitest';
import { generateApiKey, keyHint } from './api-key-format.js';

describe('keyHint', () => {
  it('shows the public prefix and 4 of 32 random characters of a generated key', () => {
    const key = generateApiKey();
    expect(keyHint(key)).toBe(`${key.slice(0, 11)}…`);
  });
  it('never stores a short key, nor more than an eighth of a long one', () => {
    for (const key of ['abc', 'dev', 'sluice_abc', 'x'.repeat(31), `sluice_${'a'.repeat(20)}`]) {
      const hint = keyHint(key);
      expect(hint).toBe(`…(${key.length} characters)`);
      expect(hint).not.toContain(key.slice(0, 3));
    }
    const long = 'k'.repeat(40) + 'z'.repeat(24);
    expect(keyHint(long)).toBe(`${'k'.repeat(8)}…`);
  });
});
