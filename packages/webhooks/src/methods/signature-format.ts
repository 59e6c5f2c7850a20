const PREFIX = 'sha256=';
const SIGNATURE_LENGTH = PREFIX.length + 64;

// Nibble per char code; -1 for anything but 0-9 and a-f (uppercase hex is not the format).
const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) NIBBLE[48 + i] = i;
for (let i = 0; i < 6; i++) NIBBLE[97 + i] = 10 + i;

/**
 * The 32 digest bytes of a well-formed signature (`sha256=` + 64 lowercase hex digits), or
 * `null` for anything else: other prefixes (`sha1=`), other lengths, uppercase or non-hex.
 * Parsing looks at the public signature only, so its early exits leak nothing about the secret.
 *
 * @example
 * ```ts
 * parseSignature('sha1=abc'); // null
 * ```
 */
export function parseSignature(signature: string): Uint8Array | null {
  if (signature.length !== SIGNATURE_LENGTH || !signature.startsWith(PREFIX)) return null;
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    const high = signature.charCodeAt(7 + 2 * i);
    const low = signature.charCodeAt(8 + 2 * i);
    const h = high < 128 ? (NIBBLE[high] as number) : -1;
    const l = low < 128 ? (NIBBLE[low] as number) : -1;
    if (h < 0 || l < 0) return null;
    bytes[i] = (h << 4) | l;
  }
  return bytes;
}
