import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Database, migrate, openDatabase } from '@sluice/db';
import pg from 'pg';
import { storeMigrations } from '../api/store-migrations.js';
import type { AppConfig } from '../config.js';

/** Schema (PostgreSQL) or folder under DATA_DIR (PGlite) holding the throwaway devnet store. */
export const devnetStoreName = 'sluice_devnet';

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
    const client = new pg.Client({ connectionString: config.databaseUrl });
    await client.connect();
    try {
      await client.query(`drop schema if exists ${devnetStoreName} cascade`);
    } finally {
      await client.end();
    }
    db = await openDatabase({ url: config.databaseUrl, schema: devnetStoreName, max: 20 });
  } else if (opts.devnet) {
    const dataDir = join(config.dataDir, 'devnet');
    rmSync(dataDir, { recursive: true, force: true });
    db = await openDatabase({ dataDir });
  } else {
    db = await openDatabase({
      url: config.databaseUrl,
      dataDir: config.dataDir,
      applicationName: 'sluice-chain',
      max: 20,
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
