import type { Queryable } from '@sluice/db';

/** A stored API key row (never the key itself: only its hash and hint). */
export interface ApiKeyRow {
  id: string;
  name: string;
  key_hint: string;
  rate_limit: number | null;
  /** Compute units per period; null = unlimited. */
  cu_quota: string | number | null;
  cu_period: 'day' | 'month';
  created_at: Date | string;
  revoked_at: Date | string | null;
}

/** The columns of an `ApiKeyRow`. */
export const apiKeyColumns =
  'id, name, key_hint, rate_limit, cu_quota, cu_period, created_at, revoked_at';

/** Inserts a key (an existing hash keeps its row, revoked or not); returns the stored row. */
export async function insertApiKey(
  db: Queryable,
  key: {
    id: string;
    name: string;
    hash: string;
    hint: string;
    rateLimit: number | null;
    cuQuota?: number | null;
    cuPeriod?: 'day' | 'month';
  },
): Promise<ApiKeyRow> {
  const { rows } = await db.query<ApiKeyRow>(
    `insert into api_keys (id, name, key_hash, key_hint, rate_limit, cu_quota, cu_period)
     values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (key_hash) do update set revoked_at = api_keys.revoked_at
     returning ${apiKeyColumns}`,
    [
      key.id,
      key.name,
      key.hash,
      key.hint,
      key.rateLimit,
      key.cuQuota ?? null,
      key.cuPeriod ?? 'month',
    ],
  );
  return rows[0] as ApiKeyRow;
}

/**
 * Changes an active key's compute-unit quota (`cuQuota` null: unlimited; undefined: unchanged)
 * and period; the changed row, or undefined when no active key has this id.
 */
export async function updateApiKeyQuota(
  db: Queryable,
  id: string,
  change: { cuQuota?: number | null; cuPeriod?: 'day' | 'month' },
): Promise<ApiKeyRow | undefined> {
  const { rows } = await db.query<ApiKeyRow>(
    `update api_keys
     set cu_quota = case when $2 then $3::bigint else cu_quota end,
         cu_period = coalesce($4, cu_period)
     where id = $1 and revoked_at is null
     returning ${apiKeyColumns}`,
    [id, change.cuQuota !== undefined, change.cuQuota ?? null, change.cuPeriod ?? null],
  );
  return rows[0];
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
