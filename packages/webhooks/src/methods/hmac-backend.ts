/** Computes HMAC-SHA256 of the payload's bytes (strings hashed as UTF-8) as lowercase hex. */
export interface HmacBackend {
  readonly name: 'node' | 'web';
  hmacHex(secret: string, payload: string | Uint8Array): string | Promise<string>;
}
