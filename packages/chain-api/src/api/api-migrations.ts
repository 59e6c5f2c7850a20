import type { Migration } from '@sluice/db';

/** Tables owned by the API layer: hashed API keys and server settings (the cursor secret). */
export const apiMigrations: Migration[] = [
  {
    id: 'api-001-api-keys',
    sql: `
      create table if not exists api_keys (
        id text primary key,
        name text not null,
        key_hash text not null unique,
        key_hint text not null,
        rate_limit integer,
        created_at timestamptz not null default now(),
        revoked_at timestamptz
      );
      create table if not exists api_settings (
        name text primary key,
        value text not null
      );
    `,
  },
];
