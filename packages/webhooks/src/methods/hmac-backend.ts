/** Computes HMAC-SHA256 of the payload's bytes; strings are hashed as UTF-8. */
export interface HmacBackend {
  readonly name: 'node' | 'web';
  hmac(secret: string, payload: string | Uint8Array): Uint8Array | Promise<Uint8Array>;
  /** Constant-time equality of two digests of equal length. */
  equal(a: Uint8Array, b: Uint8Array): boolean;
}
