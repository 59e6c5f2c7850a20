const PREFIX = 'sha256=';
const SIGNATURE_LENGTH = PREFIX.length + 64;

/**
 * Whether a signature has the one accepted format: `sha256=` + 64 lowercase hex digits. Other
 * prefixes (`sha1=`), lengths, uppercase or non-hex are rejected before any HMAC work; the
 * format is public, so these early exits leak nothing about the secret.
 *
 * @example
 * ```ts
 * isWellFormedSignature('sha1=abc'); // false
 * ```
 */
export function isWellFormedSignature(signature: string): boolean {
  if (signature.length !== SIGNATURE_LENGTH || !signature.startsWith(PREFIX)) return false;
  for (let i = PREFIX.length; i < SIGNATURE_LENGTH; i++) {
    const c = signature.charCodeAt(i);
    // 0-9 or a-f
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}
