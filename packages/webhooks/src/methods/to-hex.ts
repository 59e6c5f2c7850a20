const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * Lowercase hex of bytes.
 *
 * @example
 * ```ts
 * toHex(new Uint8Array([0xab, 0x01])); // 'ab01'
 * ```
 */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += HEX[byte];
  return hex;
}
