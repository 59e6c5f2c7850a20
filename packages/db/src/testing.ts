import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from './open-database.js';
import type { Database, DatabaseKind } from './types.js';

export interface TestDatabase {
  db: Database;
  kind: DatabaseKind;
  /** `DATABASE_URL` for a child process (carries the schema); undefined for PGlite. */
  url: string | undefined;
  /** PGlite data folder for a child process (`DATA_DIR`); undefined for PostgreSQL. */
  dataDir: string | undefined;
  /** Schema name (PostgreSQL) or undefined. */
  schema: string | undefined;
  /** Closes the database and removes the schema or folder. */
  drop(): Promise<void>;
}

/** The PostgreSQL server tests use: `TEST_DATABASE_URL`, else the local default. */
export function testDatabaseUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
}

/** Adds `search_path` to a connection string so a child process lands in the same schema. */
export function withSearchPath(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

/**
 * A fresh, isolated database for one test file: a random schema on the test PostgreSQL server,
 * or a temporary PGlite folder. PostgreSQL being unreachable is an error (tests fail, not skip).
 *
 * @example
 * import { afterAll } from 'vitest';
 * const t = await createTestDatabase('postgres');
 * afterAll(() => t.drop());
 */
export async function createTestDatabase(kind: DatabaseKind = 'postgres'): Promise<TestDatabase> {
  if (kind === 'pglite') {
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-pglite-'));
    const db = await openDatabase({ dataDir });
    return {
      db,
      kind,
      url: undefined,
      dataDir,
      schema: undefined,
      async drop() {
        await db.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const base = testDatabaseUrl();
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let db: Database;
  try {
    // No statement timeout: a busy CI machine must not fail slow test queries; tests of the
    // timeouts open their own database with them.
    db = await openDatabase({ url: base, schema, max: 5, statementTimeoutMs: 0 });
  } catch (error) {
    throw new Error(
      `PostgreSQL for tests is unreachable at TEST_DATABASE_URL (${new URL(base).host}): ${String(error)}`,
    );
  }
  return {
    db,
    kind,
    url: withSearchPath(base, schema),
    dataDir: undefined,
    schema,
    async drop() {
      await db.close();
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      try {
        await client.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await client.end();
      }
    },
  };
}

export { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
export { startTestCluster, type TestCluster } from './test-cluster.js';
