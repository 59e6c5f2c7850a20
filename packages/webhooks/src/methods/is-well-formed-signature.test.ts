import { expect, it } from 'vitest';
import { isWellFormedSignature } from './is-well-formed-signature.js';
import { toHex } from './to-hex.js';

it('accepts sha256= and 64 lowercase hex digits, including every hex digit', () => {
  const digest = new Uint8Array(32).map((_, i) => (i * 37 + 11) & 0xff);
  expect(isWellFormedSignature(`sha256=${toHex(digest)}`)).toBe(true);
  expect(isWellFormedSignature(`sha256=${'0123456789abcdef'.repeat(4)}`)).toBe(true);
});

it('hex-encodes every byte value in two lowercase digits', () => {
  expect(toHex(new Uint8Array([0, 9, 10, 15, 16, 255]))).toBe('00090a0f10ff');
});

it.each([
  'sha256=',
  `sha256=${'0'.repeat(63)}`,
  `sha256=${'0'.repeat(65)}`,
  `sha256=${'0'.repeat(63)}A`,
  `sha256=${'0'.repeat(63)}g`,
  `sha256=${'0'.repeat(63)}:`,
  `sha256=${'0'.repeat(63)}/`,
  `sha256=${'0'.repeat(63)}\``,
  `sha256=${'0'.repeat(63)}\u0100`,
  `sha257=${'0'.repeat(64)}`,
  `SHA256=${'0'.repeat(64)}`,
])('rejects %j', (signature) => {
  expect(isWellFormedSignature(signature)).toBe(false);
});
