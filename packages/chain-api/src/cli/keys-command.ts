import { parseArgs } from 'node:util';
import { type Database, DatabaseLockedError } from '@sluice/db';
import type { AppConfig } from '../config/index.js';
import { createKeyStore } from '../keys/key-store.js';
import { openStore } from './open-store.js';

const usage = `Usage:
  sluice-chain keys create [--name <name>] [--rate-limit <requests per window>]
  sluice-chain keys list [--all]
  sluice-chain keys revoke <key id>`;

/** `sluice-chain keys create|list|revoke`: manages hashed API keys in the store. */
export async function keysCommand(
  args: string[],
  config: AppConfig,
  out: (line: string) => void,
): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      'rate-limit': { type: 'string' },
      all: { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (action !== 'create' && action !== 'list' && action !== 'revoke') {
    out(usage);
    return 2;
  }
  let rateLimit: number | null = null;
  if (values['rate-limit'] !== undefined) {
    if (!/^\d+$/.test(values['rate-limit']) || Number(values['rate-limit']) < 1) {
      out('--rate-limit must be a positive integer (requests per RATE_LIMIT_WINDOW_MS)');
      return 2;
    }
    rateLimit = Number(values['rate-limit']);
  }
  if (action === 'revoke' && positionals.length !== 1) {
    out(usage);
    return 2;
  }

  let db: Database;
  try {
    db = await openStore(config);
  } catch (error) {
    if (!(error instanceof DatabaseLockedError)) throw error;
    // A PGlite folder belongs to one process: a key written beside a running server would never
    // be seen by it (and two writers corrupt the folder).
    out(
      `The PGlite data folder ${error.dataDir} is in use by process ${error.pid} ` +
        '(a running `sluice-chain serve`?). Keys cannot be changed while it runs: stop the ' +
        'server and run this again, or give keys to the server with API_KEYS=key1,key2, or use ' +
        'PostgreSQL (DATABASE_URL), where keys can be managed while it serves.',
    );
    return 1;
  }
  try {
    const store = createKeyStore(db);
    if (action === 'create') {
      const { key, record } = await store.create({ name: values.name ?? 'default', rateLimit });
      out(key);
      out(`id ${record.id} (${record.name}); store the key now: only its hash is kept.`);
      return 0;
    }
    if (action === 'list') {
      const keys = await store.list({ includeRevoked: values.all });
      if (keys.length === 0) out('no keys');
      for (const k of keys) {
        out(
          [
            k.id,
            k.hint,
            k.name,
            `limit=${k.rateLimit ?? 'default'}`,
            `created=${k.createdAt}`,
            k.revokedAt ? `revoked=${k.revokedAt}` : 'active',
          ].join('  '),
        );
      }
      return 0;
    }
    const id = positionals[0]!;
    if (await store.revoke(id)) {
      out(`revoked ${id}`);
      return 0;
    }
    out(`no active key with id ${id}`);
    return 1;
  } finally {
    await db.close();
  }
}
