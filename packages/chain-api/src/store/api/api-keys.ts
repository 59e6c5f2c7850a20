import type { Queryable } from '@sluice/db';

/** A stored API key row (never the key itself: only its hash and hint). */
export interface ApiKeyRow {
  id: string;
  name: string;
  key_hint: string;
  rate_limit: number | null;
  created_at: Date | string;
  revoked_at: Date | string | null;
}

/** Inserts a key (an existing hash keeps its row, revoked or not); returns the stored row. */
export async function insertApiKey(
  db: Queryable,
  key: { id: string; name: string; hash: string; hint: string; rateLimit: number | null },
): Promise<ApiKeyRow> {
  const { rows } = await db.query<ApiKeyRow>(
    `insert into api_keys (id, name, key_hash, key_hint, rate_limit)
     values ($1, $2, $3, $4, $5)
     on conflict (key_hash) do update set revoked_at = api_keys.revoked_at
     returning id, name, key_hint, rate_limit, created_at, revoked_at`,
    [key.id, key.name, key.hash, key.hint, key.rateLimit],
  );
  return rows[0] as ApiKeyRow;
}

/** Revokes an active key; false when there is none with this id. */
export async function revokeApiKey(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'update api_keys set revoked_at = now() where id = $1 and revoked_at is null',
    [id],
  );
  return rowCount > 0;
}

/** Stores a setting unless one with this name exists; returns the stored value. */
export async function ensureApiSetting(
  db: Queryable,
  name: string,
  value: string,
): Promise<string> {
  await db.query(
    `insert into api_settings (name, value) values ($1, $2) on conflict (name) do nothing`,
    [name, value],
  );
  const { rows } = await db.query<{ value: string }>(
    'select value from api_settings where name = $1',
    [name],
  );
  return (rows[0] as { value: string }).value;
}
