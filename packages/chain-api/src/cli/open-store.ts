import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Database, migrate, openDatabase } from '@sluice/db';
import pg from 'pg';
import type { AppConfig } from '../config/index.js';
import { storeMigrations } from '../store/migrations.js';

/** Schema (PostgreSQL) or folder under DATA_DIR (PGlite) holding the throwaway devnet store. */
export const devnetStoreName = 'sluice_devnet';

// Migrations and the workers' batches may legitimately run long: no statement timeout here.
// The API reads through `openApiPool` instead, whose timeouts bound every request.
const workerLimits = { max: 20, statementTimeoutMs: 0 } as const;

/**
 * On PostgreSQL, a second pool for the HTTP API with the statement and connection timeouts
 * (DB_STATEMENT_TIMEOUT_MS, DB_CONNECT_TIMEOUT_MS, 5 s each by default), so a hung or lost
 * database turns into 503s within a bounded time. On PGlite (in-process, one connection) the
 * store itself is returned.
 *
 * @example
 * const apiDb = await openApiPool(config, store, { devnet: false });
 */
export async function openApiPool(
  config: AppConfig,
  store: Database,
  opts: { devnet?: boolean } = {},
): Promise<Database> {
  if (store.kind !== 'postgres' || !config.databaseUrl) return store;
  return openDatabase({
    url: config.databaseUrl,
    ...(opts.devnet ? { schema: devnetStoreName } : {}),
    applicationName: 'sluice-chain-api',
    max: config.database.poolSize,
    statementTimeoutMs: config.database.statementTimeoutMs,
    connectTimeoutMs: config.database.connectTimeoutMs,
  });
}

/**
 * Opens PostgreSQL (DATABASE_URL) or the embedded PGlite in DATA_DIR and applies every migration.
 * With `devnet`, the store is a fresh one of its own: the devnet chain is new at every start
 * (new genesis, new hashes), so yesterday's index of it must not be resumed. That store is the
 * `sluice_devnet` schema (PostgreSQL) or `DATA_DIR/devnet` (PGlite), emptied first.
 */
export async function openStore(
  config: AppConfig,
  opts: { devnet?: boolean } = {},
): Promise<Database> {
  let db: Database;
  if (opts.devnet && config.databaseUrl) {
    const client = new pg.Client({
      connectionString: config.databaseUrl,
      connectionTimeoutMillis: 10_000,
    });
    client.on('error', () => {}); // a drop surfaces through the awaited calls
    await client.connect();
    try {
      await client.query(`drop schema if exists ${devnetStoreName} cascade`);
    } finally {
      await client.end();
    }
    db = await openDatabase({
      ...workerLimits,
      connectTimeoutMs: config.database.connectTimeoutMs,
      url: config.databaseUrl,
      schema: devnetStoreName,
    });
  } else if (opts.devnet) {
    const dataDir = join(config.dataDir, 'devnet');
    rmSync(dataDir, { recursive: true, force: true });
    db = await openDatabase({ dataDir });
  } else {
    db = await openDatabase({
      ...workerLimits,
      connectTimeoutMs: config.database.connectTimeoutMs,
      url: config.databaseUrl,
      dataDir: config.dataDir,
      applicationName: 'sluice-chain',
    });
  }
  try {
    await migrate(db, storeMigrations);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
