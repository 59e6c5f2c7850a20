/** Schema migrations, applied in order at start-up; ids are recorded so each runs once. */
export const userMigrations = [
  {
    id: '001-users',
    sql: `
      create table if not exists users (
        -- The user-chosen key: a unique index, so duplicates are refused by the database itself.
        id bigint primary key check (id > 0 and id <= 9007199254740991),
        _id text not null unique check (_id ~ '^[0-9a-f]{24}$'),
        name text not null check (char_length(name) between 1 and 200),
        pro text not null check (char_length(pro) between 1 and 200),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
    `,
  },
  {
    // A table version that changes with every committed write, so a cached GET /users page can
    // be revalidated with one tiny query, consistently across processes. Striped over 16 rows
    // so concurrent writers rarely wait on the same row lock.
    id: '002-users-version',
    sql: `
      create table if not exists users_version (
        slot int primary key,
        v bigint not null default 0
      );
      insert into users_version (slot, v)
        select g, 0 from generate_series(0, 15) g
        on conflict (slot) do nothing;
      create or replace function users_bump_version() returns trigger
        language plpgsql as $$
        declare
          -- Drawn once: random() inside the WHERE clause would be drawn per row.
          stripe int := floor(random() * 16)::int;
        begin
          update users_version set v = v + 1 where slot = stripe;
          return null;
        end $$;
      drop trigger if exists users_version_bump on users;
      create trigger users_version_bump
        after insert or update or delete or truncate on users
        for each statement execute function users_bump_version();
    `,
  },
];
