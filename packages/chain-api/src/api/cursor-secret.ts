import { randomBytes } from 'node:crypto';
import type { Queryable } from '@sluice/db';

/**
 * The cursor HMAC secret: the configured one, else the one stored in `api_settings`, created on
 * first start. Every replica on the same database then signs and accepts the same cursors.
 */
export async function loadCursorSecret(db: Queryable, configured?: string): Promise<string> {
  if (configured) return configured;
  await db.query(
    `insert into api_settings (name, value) values ('cursor_secret', $1) on conflict (name) do nothing`,
    [randomBytes(32).toString('base64url')],
  );
  const { rows } = await db.query<{ value: string }>(
    `select value from api_settings where name = 'cursor_secret'`,
  );
  return rows[0]!.value;
}
