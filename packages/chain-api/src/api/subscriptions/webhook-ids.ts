import { randomBytes } from 'node:crypto';
import { ApiError } from '../errors.js';
import { shown } from './body-fields.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A UUIDv7 (what the peer issues): 48 bits of milliseconds, then random bits, so ids sort by
 * creation time.
 *
 * @example
 * newWebhookId(); // '019a81c2-d84b-7141-85e8-86b072a59142'
 */
export function newWebhookId(): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(Date.now(), 0, 6);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A new signing secret: `whsec_` and 32 random bytes, base64url. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** The `webhookId` path parameter, lower-cased; 400 (text, as the peer) when it is not a UUID. */
export function parseWebhookId(params: unknown): string {
  const raw = (params as { webhookId?: unknown } | undefined)?.webhookId;
  if (typeof raw !== 'string' || !UUID.test(raw)) {
    throw new ApiError(
      'INVALID_PARAMETER',
      `Invalid URL: UUID parsing failed: \`webhookId\` ${shown(raw ?? '')} is not a UUID (like 019a81c2-d84b-7141-85e8-86b072a59142)`,
    );
  }
  return raw.toLowerCase();
}
