const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * `sha256=` + lowercase hex of a digest.
 *
 * @example
 * ```ts
 * formatSignature(new Uint8Array([0xab])); // 'sha256=ab'
 * ```
 */
export function formatSignature(digest: Uint8Array): string {
  let hex = 'sha256=';
  for (const byte of digest) hex += HEX[byte];
  return hex;
}
