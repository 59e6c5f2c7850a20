import { createHmac } from 'node:crypto';

/** Reference signature computed directly with node:crypto, independent of the code under test. */
export function independentSign(secret: string, payload: string | Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(payload).digest('hex')}`;
}
