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
];
