import { randomBytes } from 'node:crypto';
import type { Queryable } from '@sluice/db';
import { ensureApiSetting } from '../store/api/api-keys.js';

/**
 * The cursor HMAC secret: the configured one, else the one stored in `api_settings`, created on
 * first start. Every replica on the same database then signs and accepts the same cursors.
 */
export async function loadCursorSecret(db: Queryable, configured?: string): Promise<string> {
  if (configured) return configured;
  return ensureApiSetting(db, 'cursor_secret', randomBytes(32).toString('base64url'));
}
