import { type Database, migrate, openDatabase } from '@sluice/db';
import { storeMigrations } from '../api/store-migrations.js';
import type { AppConfig } from '../config.js';

/** Opens PostgreSQL (DATABASE_URL) or the embedded PGlite in DATA_DIR and applies every migration. */
export async function openStore(config: AppConfig): Promise<Database> {
  const db = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    applicationName: 'sluice-chain',
    max: 20,
  });
  try {
    await migrate(db, storeMigrations);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
