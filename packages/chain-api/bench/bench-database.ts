/**
 * A fresh PostgreSQL database per benchmark run (same server as the tests), so each indexer
 * starts cold and its size on disk is measured alone.
 */
import pg from 'pg';

export interface BenchDatabase {
  url: string;
  /** Bytes the run added: database size now minus the empty database's. */
  grownBytes(): Promise<number>;
  drop(): Promise<void>;
}

let counter = 0;

/**
 * Creates an empty database next to `adminUrl`'s.
 *
 * @example
 * const db = await freshDatabase('postgres://postgres@127.0.0.1:5432/test');
 */
export async function freshDatabase(adminUrl: string): Promise<BenchDatabase> {
  const name = `sluice_bench_${process.pid}_${Date.now()}_${counter++}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  const size = async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const { rows } = await c.query<{ n: string }>(
        'select pg_database_size(current_database())::text as n',
      );
      return Number(rows[0]?.n ?? 0);
    } finally {
      await c.end();
    }
  };
  const empty = await size();
  return {
    url,
    grownBytes: async () => (await size()) - empty,
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}
