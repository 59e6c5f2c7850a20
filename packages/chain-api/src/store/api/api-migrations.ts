import type { Migration } from '@sluice/db';

/**
 * Tables whose rows reach API responses. Each write statement to one of them notifies
 * `sluice_store_changed` (at commit), which invalidates cached responses: scoped to what it
 * touched since changes-001 (src/store/changes/change-migrations.ts), or everything for a writer that
 * does not announce its change. A table added later that responses read must get a trigger too.
 */
export const servedTables = [
  'activity',
  'native_balances',
  'erc20_balances',
  'tokens',
  'token_prices',
  'price_history',
  'nft_collections',
  'nft_holdings',
  'nft_metadata',
  'nft_sales',
  'nft_spam_overrides',
] as const;

/** Tables read only for a few columns: their other updates (progress markers) change nothing served. */
export const servedColumns = {
  // Price lookups read the chain's wrapped native token and stablecoins, not its progress.
  pricing_cursors: ['wrapped_native', 'stablecoins'],
} as const;

/**
 * Tables owned by the API layer: hashed API keys and server settings (the cursor secret); then
 * the change notifications of the served tables.
 */
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
  {
    id: 'api-002-store-change-triggers',
    // Statement-level, so a COPY of 10,000 rows costs one notify; NOTIFY dedupes identical
    // payloads within a transaction and delivers at commit, never for a rollback.
    sql: `
      create or replace function sluice_store_changed() returns trigger
      language plpgsql as $fn$
      begin
        perform pg_notify('sluice_store_changed', tg_table_schema);
        return null;
      end
      $fn$;
      ${servedTables
        .map(
          (table) => `create trigger ${table}_store_changed
        after insert or update or delete or truncate on ${table}
        for each statement execute function sluice_store_changed();`,
        )
        .join('\n      ')}
      ${Object.entries(servedColumns)
        .map(
          ([table, columns]) => `create trigger ${table}_store_changed
        after insert or delete or truncate or update of ${columns.join(', ')} on ${table}
        for each statement execute function sluice_store_changed();`,
        )
        .join('\n      ')}
    `,
  },
  {
    id: 'api-003-redact-key-hints',
    // Hints used to keep a key's first 11 characters, which is all of a short key: keep only
    // the public prefix and 4 characters of generated keys, redact every other hint.
    sql: `
      update api_keys set key_hint = case
        when key_hint like 'sluice\\_%' and char_length(key_hint) = 12 then key_hint
        else '…(redacted)'
      end;
    `,
  },
];
