import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { DatabaseError } from './database-error.js';
import { openPglite } from './pglite-database.js';
import { openPostgres } from './postgres-database.js';
import type { Database, OpenDatabaseOptions } from './types.js';

const schemaPattern = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Opens PostgreSQL when `url` is set, otherwise the embedded PGlite in `dataDir`:
 * the same SQL runs on both.
 *
 * @example
 * const db = await openDatabase({ url: process.env.DATABASE_URL, dataDir: './data' });
 * const { rows } = await db.query('select now() as now');
 * await db.close();
 */
export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Database> {
  const { schema } = options;
  if (schema !== undefined && !schemaPattern.test(schema)) {
    throw new DatabaseError('Invalid schema name', `"${schema}" must match ${schemaPattern}`);
  }
  if (options.url) return openPostgres(options.url, options);
  const dataDir = options.dataDir ?? './data';
  if (dataDir !== 'memory://') mkdirSync(resolve(dataDir), { recursive: true });
  return openPglite(dataDir === 'memory://' ? dataDir : resolve(dataDir), schema);
}
