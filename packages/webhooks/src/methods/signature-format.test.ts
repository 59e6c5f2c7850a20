import { expect, it } from 'vitest';
import { formatSignature } from './format-signature.js';
import { parseSignature } from './signature-format.js';

it('parses what it formats, for every byte value', () => {
  const digest = new Uint8Array(32).map((_, i) => (i * 37 + 11) & 0xff);
  digest[0] = 0;
  digest[31] = 255;
  expect(parseSignature(formatSignature(digest))).toEqual(digest);
});

it.each([
  'sha256=',
  `sha256=${'0'.repeat(63)}`,
  `sha256=${'0'.repeat(65)}`,
  `sha256=${'0'.repeat(63)}A`,
  `sha256=${'0'.repeat(63)}:`,
  `sha256=${'0'.repeat(63)}\u0100`,
  `sha257=${'0'.repeat(64)}`,
])('rejects %j', (signature) => {
  expect(parseSignature(signature)).toBeNull();
});
