import type { Migration } from '@sluice/db';

/**
 * Compute-unit quotas: a key's quota and period on `api_keys` (null quota = unlimited), the
 * units each key used per period (counted here when no Redis is configured), and per-period
 * totals of every key for /health (no per-key data there).
 */
export const usageMigrations: Migration[] = [
  {
    id: 'api-usage-001-compute-units',
    sql: `
      alter table api_keys add column if not exists cu_quota bigint
        check (cu_quota is null or cu_quota >= 0);
      alter table api_keys add column if not exists cu_period text not null default 'month'
        check (cu_period in ('day', 'month'));
      create table if not exists api_key_usage (
        key_id text not null references api_keys (id) on delete cascade,
        period text not null check (period in ('day', 'month')),
        period_start timestamptz not null,
        compute_units bigint not null default 0,
        primary key (key_id, period, period_start)
      );
      create table if not exists api_usage_totals (
        period text not null check (period in ('day', 'month')),
        period_start timestamptz not null,
        compute_units bigint not null default 0,
        requests bigint not null default 0,
        primary key (period, period_start)
      );
    `,
  },
];
